import path from 'node:path';
import { createEventRelay, RELAYED_EVENTS, type EventRelay } from '../cluster/event-relay.js';
import type { Logger } from 'pino';
import type { HomeLayout } from '../config/home.js';
import type { ResolvedConfig } from '../config/load.js';
import { createControlServer, type ControlServer } from '../control/server.js';
import { createEventJournal, type EventJournal } from '../control/journal.js';
import { resolveControl } from '../control/config.js';
import { gatewayEventNames } from '../gateway/events.js';
import { createGateway, type Gateway } from '../gateway/gateway.js';
import { createLogRing, type LogRing } from '../infra/log-ring.js';
import { createLogger } from '../infra/logger.js';
import type { LogFileHealth } from '../infra/log-file.js';
import { loadCheckedConfig } from '../gateway/check-config.js';
import { openStore, type Store } from '../store/database.js';
import { databaseUrl, formerNodeIdOf, nodeIdOf } from '../store/database-url.js';
import { DEFAULT_HEARTBEAT_MS, type SharedStore } from '../store/shared-store.js';
import { faultSummary } from '../store/store-fault.js';
import { coreState, initialState } from './gateway-state.js';
import { createOperations, dispatchOperation, hasOperation, type Operations } from './index.js';
import { consoleEventView, createReadModel, type GatewayEvent, type GatewayHello, type GatewayState } from './state.js';
import { repeatedFailure } from '../infra/repeated-failure.js';

export interface GatewayHostOptions {
  home: HomeLayout;
  config: ResolvedConfig;
  store: Store;
  /** Cluster mode: the shared PostgreSQL; SQLite's domains over `store` when absent. */
  cluster?: SharedStore;
  logger: Logger;
  /** The gateway's log lines, forwarded to attached consoles as `log.line` events. */
  logRing: LogRing;
  mode: 'headless' | 'console';
  version: string;
  env?: NodeJS.ProcessEnv;
  /** The log file's dropped lines, for /health. */
  logHealth?: () => LogFileHealth;
}

/** A running gateway with its operations, event journal and control channel: what `switchboard gateway` and the console run. */
export interface GatewayHost {
  gateway: Gateway;
  operations: Operations;
  journal: EventJournal;
  hello(): GatewayHello;
  /** The whole console view now (exact core parts plus the recent activity). */
  state(): GatewayState;
  stop(reason: string): Promise<void>;
}

/**
 * Starts the gateway, then serves its operations and events on `$SWITCHBOARD_HOME/control.sock`
 * (and the optional TCP listener). The socket opens only after the home lock is taken, so a second
 * gateway fails at the lock and never touches the first one's socket.
 */
export async function startGatewayHost(options: GatewayHostOptions): Promise<GatewayHost> {
  const { home, config, logger } = options;
  const control = resolveControl(config.values, options.env ?? process.env);
  // Headless, approvals wait for an attached console while one is there; with none, approvals.headless decides.
  let operators = () => 0;
  const headless = config.values.approvals?.headless ?? 'deny';
  const cluster = options.cluster;
  const gateway = createGateway({
    config, store: options.store, logger, mode: options.mode, ...(options.logHealth ? { logHealth: options.logHealth } : {}),
    ...(cluster ? { cluster, announceApproval: (id: string) => relay?.announceApproval(id), announceJobs: () => relay?.announceJobs() } : {}), version: options.version,
    ...(options.mode === 'headless' ? { approvalPolicy: () => (operators() > 0 ? 'interactive' : headless), consolesAttached: () => operators() } : {}),
  });
  const activity = createReadModel(await initialState(gateway));
  const journal = createEventJournal({ retain: 'once-listened' });
  const record = (event: GatewayEvent) => {
    activity.apply(event);
    journal.append(event.type, event.data);
  };
  // Another node's send that failed, or its retry, changes the cluster's failed count, which this
  // node's snapshot reports: read again from the store (at most twice a second).
  let recount: NodeJS.Timeout | undefined;
  const recordRelayed = (event: GatewayEvent) => {
    record(event);
    if (event.type !== 'delivery.finished') return;
    if (recount) return;
    recount = setTimeout(() => {
      recount = undefined;
      void gateway.deliveries.loadFailedCount().catch(() => {}); // a stopping store: the next start counts again
    }, 500);
    recount.unref();
  };
  // Cluster mode: webhook and run events carry the node that handled them and go to the other nodes
  // too (an event that names its node already, a retried webhook delivery's end, keeps it);
  // approval requests and decisions go as notices the other nodes' approval queues read.
  // Made after the gateway (it records into the read model made of it); approvals are asked only once it runs.
  const relay: EventRelay | undefined = cluster ? createEventRelay({
    nodeId: cluster.nodeId, open: cluster.openEvents, record: recordRelayed, approvalHeard: (id) => void gateway.approvals.heard(id), jobsHeard: () => gateway.jobs.othersChanged(), logger,
    ownRows: () => activity.state().webhooks.filter((row) => row.node === cluster.nodeId || row.runNode === cluster.nodeId),
  }) : undefined;
  const sweep = relay && cluster ? sweepRemoteRuns(relay, gateway, logger) : undefined;
  for (const type of gatewayEventNames) {
    const relayed = relay !== undefined && RELAYED_EVENTS.has(type);
    // This node's runs stay without a node in its own journal: a run event with one is another node's.
    const stampedHere = relayed && type.startsWith('webhook.');
    gateway.events.on(type, ((data: unknown) => {
      if (!relayed) return record({ type, data } as GatewayEvent);
      const stamped = { type, data: { ...(data as object), node: (data as { node?: string }).node ?? cluster!.nodeId } } as GatewayEvent;
      record(stampedHere ? stamped : { type, data } as GatewayEvent);
      relay!.send(stamped);
    }) as never);
  }
  // Lines logged before the host (which store, which node) are in the ring already: the Logs pane starts with them.
  for (const line of options.logRing.lines()) record({ type: 'log.line', data: line });
  options.logRing.onLine((line) => record({ type: 'log.line', data: line }));

  const state = (): GatewayState => ({ ...activity.state(), ...coreState(gateway) });
  const operations = createOperations({
    home, where: 'gateway', version: options.version, gateway: async () => gateway, jobs: async () => gateway.jobs, config: () => gateway.config,
  }, state);
  const hello = (): GatewayHello => {
    const snapshot = gateway.snapshot();
    const address = server.address(); // called once the server exists
    return {
      pid: snapshot.pid, home: home.root, version: options.version, mode: options.mode, startedAtMs: snapshot.startedAtMs,
      webhookUrl: snapshot.webhook.url, socketPath: home.controlSocket, tcpUrl: address?.tcpUrl ?? null,
    };
  };
  const server: ControlServer = createControlServer({
    socketPath: home.controlSocket,
    ...(control.tcp ? { tcp: control.tcp } : {}),
    dispatch: (method, params) => dispatchOperation(operations, method, params),
    hasMethod: (method) => hasOperation(operations, method),
    snapshot: state,
    journal,
    views: { console: consoleEventView },
    hello,
    logger,
    // An in-process console watches for as long as the process runs.
    subscribersChanged: (count) => relay?.watch(count + (options.mode === 'console' ? 1 : 0)),
  });

  operators = () => server.operators();
  await relay?.start();
  if (options.mode === 'console') relay?.watch(1);
  try {
    await gateway.start();
    try {
      await server.start();
    } catch (error) {
      await gateway.stop('the control channel could not start');
      throw error;
    }
  } catch (error) {
    await relay?.stop();
    throw error;
  }
  sweep?.start();
  return {
    gateway, operations, journal, hello, state,
    async stop(reason) {
      clearTimeout(recount);
      sweep?.stop();
      await gateway.stop(reason);
      await relay?.stop();
      await server.stop();
    },
  };
}

/** How often the runs other nodes hold are checked against the `nodes` table (a dead node sends no run end). */
const REMOTE_RUNS_SWEEP_MS = 5_000;

/** Cluster mode: every 5 s, while runs of other nodes are counted here, those of dead or restarted nodes end. */
function sweepRemoteRuns(relay: EventRelay, gateway: Gateway, logger: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  const failures = repeatedFailure(logger, 'Reading the nodes table for runs of other nodes');
  const tick = () => {
    if (busy || !relay.hasRemoteRuns() || !gateway.cluster) return;
    busy = true;
    void gateway.cluster.nodes().then((nodes) => { relay.sweep(nodes); failures.worked(); })
      .catch((error: unknown) => failures.failed(error))
      .finally(() => { busy = false; });
  };
  return {
    start: () => { timer = setInterval(tick, REMOTE_RUNS_SWEEP_MS); timer.unref(); },
    stop: () => clearInterval(timer),
  };
}

/**
 * How long a stop may take before the process exits anyway: runs are cancelled, MCP servers get
 * their own 2 s, and a store that cannot take writes (a full disk) must not keep SIGTERM waiting.
 */
export const SHUTDOWN_DEADLINE_MS = 10_000;

export interface HomeGateway {
  host: GatewayHost;
  /** The gateway's lines, for the console's Logs pane (its only view of them in console mode). */
  logRing: LogRing;
  /** Writes to gateway.log only: for what the caller already reported to the operator itself. */
  fileLogger: Logger;
  /** Stops the gateway (in order) and closes the store and the log; gives up after SHUTDOWN_DEADLINE_MS (false: the caller exits the process). */
  stop(reason: string): Promise<boolean>;
}

/**
 * Starts the gateway of a home as `switchboard gateway` (`headless`: readable lines on stderr) or
 * an in-process console (`console`: only Ink writes to the terminal, lines go to the ring) run it:
 * config checked with checkConfig, logs, store, then the host. A failed start closes what it opened.
 */
export async function startHomeGateway(home: HomeLayout, options: { mode: 'headless' | 'console'; version: string }): Promise<HomeGateway> {
  const config = loadCheckedConfig(home);
  const logRing = createLogRing();
  const { logger, fileLogger, health: logHealth, close: closeLog } = createLogger({ file: home.gatewayLog, level: config.logLevel, mode: options.mode, sink: logRing.stream });
  let store: Store | undefined;
  let shared: SharedStore | undefined;
  try {
    store = openStore(home.stateDb);
    const opened = store;
    const url = databaseUrl(config.values);
    if (url) {
      const { openSharedStore } = await import('../store/shared-store.js');
      shared = await openSharedStore(url, nodeIdOf(home.root), { heartbeatMs: 1_000 * (config.values.store?.heartbeat_seconds ?? DEFAULT_HEARTBEAT_MS / 1_000) });
      logger.info(`Store: PostgreSQL at ${shared.shown}, shared with the other nodes; this node is ${shared.nodeId}`);
    } else {
      // Likely started without the database (a shell without the variable): said at start, not only by `status`.
      const former = formerNodeIdOf(home.root);
      if (former) logger.warn(`This home was cluster node ${former}, but no database URL is set (store.url or SWITCHBOARD_DATABASE_URL): this gateway runs alone on its SQLite file and the other nodes never see what it takes. To rejoin, restart it with the URL; to leave the cluster for good, delete ${path.join(home.root, 'node-id')}`);
    }
    const sharedStore = shared;
    const host = await startGatewayHost({ home, config, store, logger, logRing, logHealth, mode: options.mode, version: options.version, ...(sharedStore ? { cluster: sharedStore } : {}) });
    return {
      host, logRing, fileLogger,
      async stop(reason) {
        const clean = async () => {
          await host.stop(reason);
          host.gateway.events.removeAllListeners();
          opened.close();
          await sharedStore?.close();
          return true;
        };
        const deadline = new Promise<false>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_DEADLINE_MS).unref());
        const stopped = await Promise.race([clean(), deadline]);
        if (!stopped) {
          const fault = opened.fault();
          logger.error(`The gateway did not stop within ${SHUTDOWN_DEADLINE_MS / 1000} s${fault ? ` (${faultSummary(fault)})` : ''}; exiting anyway. Webhook runs that did not finish run again at the next start; runs left open are closed as interrupted`);
        }
        await closeLog();
        return stopped;
      },
    };
  } catch (error) {
    fileLogger.error({ err: error }, 'Gateway failed to start');
    store?.close();
    await shared?.close();
    await closeLog();
    throw error;
  }
}
