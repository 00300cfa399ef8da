import { randomUUID } from 'node:crypto';
import { followAbort } from '../infra/follow-abort.js';
import { skillsCheck } from '../agent/skills-check.js';
import { intakeJournalFile } from '../webhooks/intake-journal.js';
import { hostname } from 'node:os';
import { configHash, createMembership, type Membership } from '../cluster/membership.js';
import { createTakeover } from '../cluster/takeover.js';
import type { NodeView } from '../store/pg/nodes.js';
import type { SharedStore } from '../store/shared-store.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createAgentStack, type AgentStack } from '../agent/agent-stack.js';
import { reportSkillProblems } from '../agent/skills.js';
import type { ApprovalPolicy } from '../agent/approval-queue.js';
import type { RunAgent } from '../agent/types.js';
import { invalidConfigError, type ResolvedConfig } from '../config/load.js';
import { routeTargetIssues } from '../delivery/check-config.js';
import { createDeliveryService, type DeliveryService } from '../delivery/deliver.js';
import type { DeliveryRequest } from '../delivery/types.js';
import { describeSubject } from '../delivery/log-target.js';
import { reapOrphans } from '../infra/child-records.js';
import { createMcpComponent, type McpCommands, type McpSnapshot } from '../mcp/gateway-component.js';
import { createCronjobTool } from '../scheduler/cronjob-tool.js';
import { sqliteExternalChanges } from '../scheduler/sqlite-jobs.js';
import { createJobsDomain } from '../scheduler/jobs-domain.js';
import type { JobsCore, SchedulerSnapshot } from '../scheduler/scheduler.js';
import { sqliteBackends, type StoreBackends } from '../store/async-domains.js';
import type { RunRow } from '../store/runs.js';
import type { Store } from '../store/database.js';
import { resolveWebhooks } from '../webhooks/config.js';
import { recordRedelivery } from '../webhooks/redelivered.js';
import { createWebhookPlatform, type WebhookPlatform } from '../webhooks/platform.js';
import { createConfigCommands, type ConfigCommands } from './config-commands.js';
import { createConfigWatch } from './config-watch.js';
import { createWebhookCommands, type WebhookCommands } from './webhook-commands.js';
import { createGatewayEvents, type GatewayEvents } from './events.js';
import type { GatewayMetrics } from './metrics.js';
import { createLifecycle, type Component } from './lifecycle.js';
import { acquireGatewayLock } from './lock.js';
import { gatewayHealth, storeComponent, type GatewayHealth } from './store-component.js';
import type { LogFileHealth } from '../infra/log-file.js';
import { listen } from './webhook-listener.js';

export interface GatewayDeps {
  config: ResolvedConfig;
  store: Store;
  /** The store's domains; SQLite's (over `store`) unless given. */
  backends?: StoreBackends;
  /** Cluster mode: the shared PostgreSQL (its domains replace `backends`) and this node's membership. */
  cluster?: SharedStore;
  /** The version a cluster node reports. */
  version?: string;
  logger: Logger;
  now?: () => number;
  pid?: number;
  /** `console`: an operator decides approvals at the keyboard; `headless`: `approvals.headless` decides. */
  mode?: 'headless' | 'console';
  /** Headless: how many consoles are attached now (an `origin` delivery shows in their Output panes). */
  consolesAttached?: () => number;
  /** Overrides the approval policy the mode implies (a CLI run at a terminal asks there: `interactive`). */
  approvalPolicy?: ApprovalPolicy | (() => ApprovalPolicy);
  /** The log file's dropped lines (a full disk), for /health. */
  logHealth?: () => LogFileHealth;
  /** Cluster mode: tells the other nodes that an approval request was recorded or decided here (source/cluster/event-relay.ts). */
  announceApproval?: (id: string) => void;
  /** Cluster mode: tells the other nodes that a job changed here (they read the jobs again at once). */
  announceJobs?: () => void;
}

export type GatewayStatus = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface GatewaySnapshot {
  status: GatewayStatus;
  pid: number;
  home: string;
  startedAtMs: number | null;
  /** The provider (`dry-run` when none is configured). */
  model: string;
  /** The model's name at that provider, when one is set. */
  modelName: string | null;
  timezone: string;
  approvalsPending: number;
  jobs: SchedulerSnapshot;
  webhook: { enabled: boolean; url: string | null; routes: string[]; subscriptions: string[] };
  mcp: McpSnapshot;
  /** What /health says: store faults, kept writes, dropped log lines. */
  health: GatewayHealth;
  /** Cluster mode: this node's id (rows of its runs and approvals show it). */
  node?: string;
}

export interface Gateway {
  events: GatewayEvents;
  start(): Promise<void>;
  stop(reason?: string): Promise<void>;
  snapshot(): GatewaySnapshot;
  /** The webhook Fastify app, for tests' inject(); null while the platform is disabled. */
  readonly webhookApp: FastifyInstance | null;
  /** Commands: run a prompt, decide approvals, see the tools. */
  runAgent: AgentStack['runAgent'];
  approvals: AgentStack['approvals'];
  tools: AgentStack['tools'];
  /** Delivers outputs to targets, records them, retries failed ones (`deliveries.retry(id)`). */
  deliveries: DeliveryService;
  /** MCP servers: `mcp.reload()` (spec /reload-mcp), `mcp.list()`. */
  mcp: McpCommands;
  /** Webhook commands: replay a recorded delivery, send a signed test request through the intake, subscribe (spec 2.8). */
  webhooks: WebhookCommands;
  /** config.json from the console: read, change one key, reread after $EDITOR; what changed is applied live where it can be. */
  config: ConfigCommands;
  /**
   * What a run needs without the whole gateway (a CLI `run` or `cron run` while no gateway runs):
   * the MCP servers, connected before the first run, closed afterwards.
   */
  runtime: { start(): Promise<void>; stop(): Promise<void> };
  /** The stored record of an agent run (prompt, model, tool calls, result); cancelling one in flight. */
  runs: { get(runId: string): Promise<RunRow | undefined>; cancel(runId: string): boolean; inFlight(): string[] };
  /** Scheduled jobs: create, list, pause, resume, remove, runNow (the console's /cron). */
  jobs: JobsCore;
  /** Cluster mode: this node's id and every node's state; null on SQLite (one gateway). */
  cluster: { nodeId: string; nodes(): Promise<NodeView[]> } | null;
}

/** Wires the core: the home lock first, then intake. Stop runs the same list backwards. */
export function createGateway(deps: GatewayDeps): Gateway {
  const now = deps.now ?? Date.now;
  const pid = deps.pid ?? process.pid;
  const { config, logger } = deps;
  const events = createGatewayEvents();
  const backends = deps.cluster?.backends ?? deps.backends ?? sqliteBackends(deps.store, now);
  const audit = backends.audit;
  // Throws ConfigError for a model without its key or URL: refuse to start rather than fail every run.
  const agentStack = createAgentStack({
    config, runs: backends.runs, approvals: backends.approvals, logger, events, now,
    // Requests and decisions of other nodes arrive as notifications (announceApproval, then
    // approvals.heard); this 5 s read only catches one lost while the channel reconnected.
    ...(deps.cluster ? { othersEveryMs: 5_000 } : {}),
    ...(deps.announceApproval ? { announce: deps.announceApproval } : {}),
    policy: deps.approvalPolicy ?? (deps.mode === 'console' ? 'interactive' : (config.values.approvals?.headless ?? 'deny')),
  });
  const targetIssues = routeTargetIssues(config.values);
  if (targetIssues.length > 0) throw invalidConfigError(targetIssues, config.home.configFile);
  const showInConsoles = (request: DeliveryRequest, detail: string) => {
    events.emit('output.delivered', { subject: request.subject, title: describeSubject(request), text: request.output, failed: request.failed === true, atMs: now() });
    return { ok: true as const, detail };
  };
  // `origin`: the Output pane of the console running this gateway, or of the consoles attached to a
  // headless one; with none to show it, the delivery service keeps it in a file.
  const origin = deps.mode === 'console'
    ? (request: DeliveryRequest) => showInConsoles(request, 'shown in the console Output pane')
    : (request: DeliveryRequest) => {
      const attached = deps.consolesAttached?.() ?? 0;
      return attached > 0 ? showInConsoles(request, `shown in the Output pane of ${attached} attached console(s)`) : undefined;
    };
  const deliveries = createDeliveryService({
    homeRoot: config.home.root, logger, config: config.values, history: backends.outputDeliveries, events, now,
    origin, ...(deps.cluster ? { node: deps.cluster.nodeId } : {}),
    // A retry that delivered: the webhook delivery or job run it was for says so too (consoles hear it).
    afterRetry: async (subject, detail) => {
      if (subject.kind === 'webhook') await recordRedelivery({ deliveries: backends.deliveries, events, now }, subject, detail);
      else if (subject.kind === 'job') await jobs.redelivered(subject.runId, detail);
    },
  });
  const mcp = createMcpComponent({ config, logger, events, tools: agentStack.tools, approvals: agentStack.approvals, model: agentStack.agent.model, now, ...(deps.cluster ? { tokens: deps.cluster.mcpTokens } : {}) });
  // No run of any origin starts before the MCP servers' first connection round has settled, so the
  // first runs see the same tools as the later ones (the listener accepts meanwhile).
  // Every run in flight can be cancelled by id (the console's x, `runs.cancel`), whatever started it.
  const inFlight = new Map<string, AbortController>();
  const running = new Set<Promise<unknown>>();
  const cancelRuns = async () => {
    for (const controller of inFlight.values()) controller.abort();
    await Promise.allSettled([...running]);
  };
  const runAgent: RunAgent = async (request) => {
    const runId = request.runId ?? randomUUID();
    const controller = new AbortController();
    // The caller's signal (its queue stopping) aborts the run's own too.
    const unfollow = followAbort(controller, request.signal);
    inFlight.set(runId, controller);
    try {
      await mcp.ready();
      const run = agentStack.runAgent({ ...request, runId, signal: controller.signal });
      running.add(run);
      return await run.finally(() => running.delete(run));
    } finally {
      unfollow();
      inFlight.delete(runId);
    }
  };
  // Throws ConfigError for a route without a secret, or INSECURE_NO_AUTH on a non-loopback host.
  const health = () => gatewayHealth(deps.store, deps.logHealth ?? (() => ({ dropped: 0, fault: null })));
  const webhookSettings = config.webhook.enabled ? resolveWebhooks(config) : null;
  // Made when the listener starts (prom-client loads only then, and only when metrics are on).
  let metrics: GatewayMetrics | undefined;
  const startMetrics = async () => {
    const { createGatewayMetrics } = await import('./metrics.js');
    metrics = createGatewayMetrics({ events, queueDepth: async () => (await webhooks?.counts())?.queued ?? 0, mcpServers: () => mcp.commands.list() });
  };
  const metricsRoute = { render: async () => ({ contentType: metrics!.contentType, text: await metrics!.render() }) };
  const webhooks: WebhookPlatform | null = webhookSettings
    ? createWebhookPlatform({ settings: webhookSettings, deliveries: backends.deliveries, subscriptions: backends.subscriptions, ...(backends.intake ? { intake: backends.intake, journalFile: intakeJournalFile(deps.store.file) } : {}), ...(backends.rateLimits ? { rateLimiter: backends.rateLimits } : {}), logger, events, now, runAgent, deliver: deliveries.deliver, health, earlierSend: async (route, deliveryId, sinceMs, seq) => deliveries.history?.earlierSendFor(route, deliveryId, sinceMs, seq), ...(webhookSettings.metrics ? { metrics: metricsRoute } : {}) })
    : null;
  const webhookApp = webhooks?.app ?? null;
  const configCommands = createConfigCommands({ home: config.home, initial: config, logger, audit, events, mcp: mcp.commands, webhooks, live: () => status === 'running' });
  // On SQLite, jobs the CLI wrote are noticed through data_version; other backends are re-read at each
  // pass (a node's own state.db never moves with the shared jobs), and the other nodes' notices.
  const { cron, scheduler, jobs } = createJobsDomain({
    config, jobs: backends.jobs, ...(deps.backends || deps.cluster ? {} : { externalChanges: sqliteExternalChanges(deps.store) }), ...(deps.announceJobs ? { announce: deps.announceJobs } : {}),
    logger, events, now, runAgent, deliver: deliveries.deliver,
  });
  agentStack.tools.register(createCronjobTool({ scheduler, timezone: cron.timezone, scriptsDir: cron.scriptsDir }));

  let status: GatewayStatus = 'idle';
  let startedAtMs: number | null = null;
  let webhookUrl: string | null = null;
  let lock: ReturnType<typeof acquireGatewayLock> | undefined;

  const components: Component[] = [
    {
      name: 'lock',
      start: () => {
        lock = acquireGatewayLock(config.home.lockFile, { pid, startedAt: new Date(now()).toISOString() });
      },
      stop: () => lock?.release(),
    },
    { name: 'orphan reaper', start: () => void reapOrphans(config.home.childrenDir, (message) => logger.warn(message)), stop: () => {} },
    // Once per start: a SKILL.md that runs would skip is named here, not only in the warning of each run that names it.
    { name: 'skills check', start: () => reportSkillProblems(config.home.skillsDir, (message) => logger.warn(message)), stop: () => {} },
    // Stopped last, so every write commits (source/gateway/store-component.ts).
    storeComponent({ store: deps.store, logger, events, now }),
    // Before any queue runs: sends a crashed process left half-done are marked (uncertain, or failed to be redone).
    {
      name: 'interrupted deliveries',
      start: async () => {
        const runs = await backends.runs.closeInterrupted('the gateway stopped during this run', now());
        if (runs > 0) logger.warn(`${runs} agent run(s) left running by a stopped gateway were closed as interrupted`);
        const left = await deliveries.recoverInterrupted(now());
        if (left && left.uncertain > 0) logger.warn(`${left.uncertain} delivery(ies) were being sent when the gateway stopped and may or may not have arrived: marked uncertain (switchboard deliveries list; retry with switchboard deliveries retry <id>)`);
      },
      stop: () => {},
    },
    // Stopped after the approval queue is cancelled (STYLE.md section 2: cancel approvals, then close MCP clients).
    mcp.component,
    // Started before intake so that stopping (reverse order) closes intake first, then cancels approvals.
    { name: 'approval queue', start: () => {}, stop: () => agentStack.approvals.cancelAll('the gateway is stopping') },
    // Runs started from the console or the CLI (webhook and job runs stop with their queue and scheduler first).
    // Their records written before the store closes.
    { name: 'runs in flight', start: () => {}, stop: async () => { await cancelRuns(); await agentStack.runs.settled(); } },
    // Before anything that starts runs: the first run then does not load the provider while webhooks arrive.
    { name: 'model provider', start: () => agentStack.preloadModel(), stop: () => {} },
    { name: 'scheduler', start: () => scheduler.start(), stop: () => scheduler.stop() },
  ];
  if (webhooks && webhookApp) {
    // Before the listener, so stopping closes intake first, then cancels runs (queued again for the next start).
    components.push({ name: 'webhook subscriptions', start: () => webhooks.start(), stop: () => webhooks.stop() });
    components.push({ name: 'webhook run queue', start: () => webhooks.queue.start(), stop: () => webhooks.queue.stop() });
    components.push({
      name: 'webhook listener',
      start: async () => {
        if (webhookSettings?.metrics) await startMetrics();
        const bound = await listen(webhookApp, config.webhook, config.home.configFile);
        webhookUrl = bound.url;
        lock?.update({ pid, startedAt: new Date(startedAtMs ?? now()).toISOString(), webhookUrl });
        const routes = config.webhook.routeNames;
        const { subscriptions } = webhooks.routeNames();
        const dynamic = subscriptions.length > 0 ? `; subscriptions: ${subscriptions.join(', ')}` : '';
        logger.info(`Webhook listener on ${bound.url} - routes: ${routes.length > 0 ? routes.join(', ') : '(none)'}${dynamic}`);
        events.emit('webhook.listening', { url: bound.url, routes });
      },
      stop: async () => {
        await webhookApp.close();
        metrics?.close();
        metrics = undefined;
        webhookUrl = null;
      },
    });
  }
  let membership: Membership | undefined;
  if (deps.cluster) {
    const shared = deps.cluster;
    const takeOver = createTakeover({
      shared, now, logger,
      deliver: webhooks ? async (undelivered) => {
        await webhooks.queue.adopt(undelivered);
        webhooks.queue.notify();
      } : undefined,
    });
    membership = createMembership({
      shared, takeOver, logger,
      info: () => ({ host: hostname(), pid, version: deps.version ?? 'unknown', configHash: configHash(config.home.configFile), runsInFlight: inFlight.size, webhookUrl }),
    });
    // After the queue: a silent node's undelivered runs are handed to it.
    components.push(membership);
  }
  // Last: edits from other processes are applied only once everything they touch is running.
  components.push(createConfigWatch({ file: config.home.configFile, reload: () => configCommands.reload('file'), paused: configCommands.editing, logger }));
  const lifecycle = createLifecycle(components, (name, error) => logger.error({ err: error }, `Stopping ${name} failed`));

  return {
    events,
    webhookApp,
    runAgent,
    approvals: agentStack.approvals,
    tools: agentStack.tools,
    deliveries,
    mcp: mcp.commands,
    webhooks: createWebhookCommands({
      platform: webhooks, events, now, host: config.webhook.host, port: config.webhook.port,
      values: () => configCommands.current().values, listenerUrl: () => webhookUrl, checkSkills: skillsCheck(config.home.skillsDir),
    }),
    config: configCommands,
    runs: {
      get: (runId) => agentStack.runs.get(runId),
      cancel: (runId) => {
        const controller = inFlight.get(runId);
        controller?.abort();
        return controller !== undefined;
      },
      inFlight: () => [...inFlight.keys()],
    },
    runtime: {
      start: async () => {
        if (status !== 'idle') throw new Error('the gateway runs: runs go through it');
        await mcp.component.start();
      },
      stop: async () => {
        await agentStack.approvals.cancelAll('the run ended');
        await scheduler.stop(); // its pre-run workers
        await mcp.component.stop();
      },
    },
    jobs,
    cluster: deps.cluster && membership ? { nodeId: deps.cluster.nodeId, nodes: membership.nodes } : null,
    async start() {
      if (status !== 'idle') throw new Error(`Gateway cannot start from status ${status}`);
      status = 'starting';
      startedAtMs = now();
      try {
        await lifecycle.start();
      } catch (error) {
        status = 'stopped';
        throw error;
      }
      if (!webhookApp) logger.info('Webhook platform disabled (platforms.webhook.enabled is not true)');
      status = 'running';
      void audit.record('gateway', 'gateway.started', `pid ${pid}`).catch(() => {});
      events.emit('gateway.started', { atMs: now(), pid });
    },
    async stop(reason = 'stop requested') {
      if (status !== 'running') return;
      status = 'stopping';
      logger.info(`Gateway stopping: ${reason}`);
      await lifecycle.stop();
      status = 'stopped';
      logger.info(`Gateway stopped: ${reason}`);
      void audit.record('gateway', 'gateway.stopped', reason).catch(() => {});
      events.emit('gateway.stopped', { atMs: now(), reason });
    },
    snapshot: () => {
      const routeNames = webhooks?.routeNames(); // once per frame: it reads the subscriptions table
      return {
        status,
        pid,
        home: config.home.root,
        startedAtMs,
        model: config.values.model?.provider ?? 'dry-run',
        modelName: config.values.model?.name ?? null,
        timezone: config.timezone,
        approvalsPending: agentStack.approvals.pending().length,
        jobs: scheduler.snapshot(),
        mcp: mcp.snapshot(),
        webhook: { enabled: config.webhook.enabled, url: webhookUrl, routes: routeNames?.static ?? config.webhook.routeNames, subscriptions: routeNames?.subscriptions ?? [] },
        health: health(),
        ...(deps.cluster ? { node: deps.cluster.nodeId } : {}),
      };
    },
  };
}
