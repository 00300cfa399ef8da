import type { GatewayEventMap } from '../gateway/events.js';
import type { GatewaySnapshot } from '../gateway/gateway.js';
import type { LogLine } from '../infra/log-ring.js';
import type { McpServerView } from '../mcp/manager.js';
import type { SessionGrant } from '../agent/approval-queue.js';
import type { ApprovalRecord } from '../store/approvals.js';
import type { JobRow } from '../store/jobs.js';
import { createWebhookRing, mergeWebhookRows, type WebhookRow } from './webhook-rows.js';

/** Who serves this state: identity for headers and `status` (the control channel's hello). */
export interface GatewayHello {
  pid: number;
  home: string;
  version: string;
  /** `headless`: `switchboard gateway`; `console`: a console that runs the gateway in its own process. */
  mode: 'headless' | 'console';
  startedAtMs: number | null;
  webhookUrl: string | null;
  /** The control channel's addresses. */
  socketPath: string;
  tcpUrl: string | null;
}

export interface OutputEntry {
  id: string;
  atMs: number;
  title: string;
  text: string;
  ok: boolean;
}

/** Everything a console shows, as one value: the snapshot a client gets on subscribe, then folds events into. */
export interface GatewayState {
  gateway: GatewaySnapshot;
  /** Pending approvals, oldest first. */
  approvals: ApprovalRecord[];
  /** The last decided requests (approved, denied, expired, cancelled), newest first: an expired request stays visible. */
  approvalHistory: ApprovalRecord[];
  /** Tools approved for the session (revocable). */
  grants: SessionGrant[];
  mcpServers: McpServerView[];
  /** Every job, paused ones too. */
  jobs: JobRow[];
  /** The last 500 webhook requests, newest first, with their run and delivery. */
  webhooks: readonly WebhookRow[];
  outputs: readonly OutputEntry[];
  logs: readonly LogLine[];
  /** This node's runs in flight, then (cluster mode) those of the other nodes. */
  runsInFlight: string[];
  /** Cluster mode: the node of each run in flight on another node (this node's runs are not in it). */
  runNodes?: Readonly<Record<string, string>>;
  /** Output deliveries failed or uncertain now (those D lists and `deliveries retry` sends again). */
  failedDeliveries: number;
}

/** One event of the journal: every bus event, plus the gateway's log lines. */
export type GatewayEvent = { [K in keyof EventMap]: { type: K; data: EventMap[K][0] } }[keyof EventMap];
type EventMap = GatewayEventMap & {
  'log.line': [LogLine];
  /**
   * Cluster mode: another node's recent webhook rows, sent when a console began watching here (a
   * node relays its events only while some node is watched: source/cluster/event-relay.ts).
   */
  'webhook.rowsShared': [{ node: string; rows: WebhookRow[] }];
};

export const MAX_OUTPUTS = 200;
export const MAX_APPROVAL_HISTORY = 20;
export const MAX_LOG_LINES = 2000;

/** Events after which the parts that events do not carry (header, listener, routes) are read again. */
export const resyncEvents: ReadonlySet<string> = new Set(['gateway.started', 'gateway.stopped', 'webhook.listening', 'webhook.routesChanged', 'config.changed', 'mcp.toolsChanged', 'store.faulted', 'store.recovered']);

/** The event types `createReadModel` folds, and those after which a console reads the state again. */
const consoleTypes: ReadonlySet<string> = new Set([
  'webhook.received', 'webhook.runStarted', 'webhook.completed', 'webhook.rowsShared', 'log.line', 'run.started', 'run.finished', 'output.delivered',
  'approval.requested', 'approval.resolved', 'approval.grantsChanged', 'job.changed', 'job.started', 'job.finished', 'mcp.statusChanged', 'delivery.finished', ...resyncEvents,
]);

/**
 * The control channel's `console` view (`events.subscribe` with `"view": "console"`): each event as
 * the read model folds it. Events it does not fold are skipped (`run.progressed`, `config.changed`...),
 * and so are the large fields it never reads: a run's prompt, and the output and tool calls of runs a
 * console did not start (under a webhook flood these were most of the bytes an attached console parsed).
 */
export function consoleEventView<E extends { type: string; data: unknown }>(event: E): E | undefined {
  if (!consoleTypes.has(event.type)) return undefined;
  if (event.type === 'run.started') {
    const { prompt: _prompt, ...data } = event.data as EventMap['run.started'][0];
    return { ...event, data };
  }
  if (event.type === 'run.finished') {
    const data = event.data as EventMap['run.finished'][0];
    if (data.origin !== 'console') return { ...event, data: { ...data, output: '', toolCalls: [] } };
  }
  return event;
}

/**
 * The read model: a GatewayState plus events folded in, in order. The gateway keeps one (for the
 * rings a snapshot carries: webhooks, logs, outputs, runs in flight) and every console keeps one
 * (its whole view): the same fold on both sides, so an attached console shows what the gateway saw.
 * Folding mutates; `state()` hands out an immutable copy, rebuilt only after a change.
 */
export function createReadModel(initial: GatewayState) {
  let base = initial;
  let webhooks = createWebhookRing(undefined, initial.webhooks);
  let logs = initial.logs.slice(-MAX_LOG_LINES);
  let outputs = initial.outputs.slice(0, MAX_OUTPUTS);
  let approvals = initial.approvals.slice();
  let history = initial.approvalHistory.slice(0, MAX_APPROVAL_HISTORY);
  let grants = initial.grants.slice();
  let jobs = initial.jobs.slice();
  let servers = initial.mcpServers.slice();
  const inFlight = new Set(initial.runsInFlight);
  let runNodes: Record<string, string> = { ...initial.runNodes };
  // Output deliveries failed or uncertain (what D lists), by record id, so a retry that fails again
  // counts once and one that succeeds leaves. Until `seedFailed` has their ids: the snapshot's count.
  let failedIds: Set<string> | undefined;
  // Outcomes seen while the seed is read, laid over it (the seed may be older than they are).
  let seeding: Map<string, boolean> | undefined;
  // Jobs running now (the Jobs pane's `running`): the snapshot's, then job.started / job.finished.
  let jobsRunning = new Set(initial.gateway.jobs.running);
  let cached: GatewayState | undefined;

  const addOutput = (entry: OutputEntry) => { outputs = [entry, ...outputs].slice(0, MAX_OUTPUTS); };

  const fold = (event: GatewayEvent): void => {
    switch (event.type) {
      case 'webhook.received': return webhooks.received(event.data);
      case 'webhook.runStarted': return webhooks.runStarted(event.data);
      case 'webhook.completed': return webhooks.completed(event.data);
      case 'webhook.rowsShared':
        webhooks = createWebhookRing(undefined, mergeWebhookRows(webhooks.rows(), event.data.rows));
        return;
      case 'log.line':
        logs.push(event.data);
        if (logs.length > MAX_LOG_LINES + MAX_LOG_LINES / 4) logs = logs.slice(-MAX_LOG_LINES);
        return;
      case 'run.started':
        inFlight.add(event.data.runId);
        if (event.data.node) runNodes = { ...runNodes, [event.data.runId]: event.data.node };
        return;
      case 'run.finished': {
        const result = event.data;
        inFlight.delete(result.runId);
        if (result.node) {
          const { [result.runId]: _gone, ...rest } = runNodes;
          runNodes = rest;
          return; // another node's console run: its output is that console's
        }
        if (result.origin === 'console') {
          addOutput({ id: result.runId, atMs: result.finishedAtMs, title: `console run ${result.runId.slice(0, 8)} ${result.status}`, text: result.error ? `${result.error}\n${result.output}` : result.output, ok: result.status === 'ok' });
        }
        return;
      }
      case 'output.delivered': {
        const output = event.data;
        addOutput({ id: `${output.atMs}-${outputs.length}`, atMs: output.atMs, title: output.title, text: output.text, ok: !output.failed });
        return;
      }
      case 'approval.requested':
        if (event.data.status === 'pending' && !approvals.some((record) => record.id === event.data.id)) approvals = [...approvals, event.data];
        return;
      case 'approval.resolved':
        approvals = approvals.filter((record) => record.id !== event.data.id);
        history = [event.data, ...history.filter((record) => record.id !== event.data.id)].slice(0, MAX_APPROVAL_HISTORY);
        return;
      case 'approval.grantsChanged': grants = event.data.grants; return;
      case 'job.changed': {
        const { jobId, job } = event.data;
        const index = jobs.findIndex((row) => row.id === jobId);
        if (!job) jobs = jobs.filter((row) => row.id !== jobId);
        else if (index < 0) jobs = [...jobs, job];
        else jobs = jobs.map((row) => (row.id === jobId ? job : row));
        return;
      }
      case 'job.started':
        jobsRunning = new Set(jobsRunning).add(event.data.jobId);
        return;
      case 'job.finished':
        // A fire skipped because the job was still running (overlap) leaves that run running.
        if (event.data.status !== 'skipped' && jobsRunning.has(event.data.jobId)) jobsRunning = new Set([...jobsRunning].filter((id) => id !== event.data.jobId));
        return;
      case 'mcp.statusChanged': {
        const state = event.data;
        const index = servers.findIndex((server) => server.name === state.name);
        if (index >= 0) servers = servers.map((server) => (server.name === state.name ? { ...server, ...state } : server));
        // A server (re)added by a reload or reconnect: its tools and settings follow with mcp.toolsChanged (a resync).
        else servers = [...servers, { ...state, tools: [], skipped: [], oauth: false, trust: 'full' }];
        return;
      }
      case 'delivery.finished': {
        const { recordId, ok } = event.data.result;
        if (!recordId) return; // not recorded: D cannot list it either
        seeding?.set(recordId, ok);
        if (failedIds) markFailed(failedIds, recordId, ok);
        return;
      }
      default:
        return;
    }
  };

  return {
    apply(event: GatewayEvent): void {
      fold(event);
      cached = undefined;
    },
    /** Replaces everything with a fresh snapshot (a console that re-attached, or resynced after a rare event). */
    reset(next: GatewayState): void {
      base = next;
      webhooks = createWebhookRing(undefined, next.webhooks);
      logs = next.logs.slice(-MAX_LOG_LINES);
      outputs = next.outputs.slice(0, MAX_OUTPUTS);
      approvals = next.approvals.slice();
      history = next.approvalHistory.slice(0, MAX_APPROVAL_HISTORY);
      grants = next.grants.slice();
      jobs = next.jobs.slice();
      servers = next.mcpServers.slice();
      inFlight.clear();
      for (const runId of next.runsInFlight) inFlight.add(runId);
      runNodes = { ...next.runNodes };
      failedIds = undefined;
      seeding = undefined;
      jobsRunning = new Set(next.gateway.jobs.running);
      cached = undefined;
    },
    /** Only the header part (gateway snapshot) and MCP servers, as read again after a rare event. */
    refresh(next: Pick<GatewayState, 'gateway' | 'mcpServers'>): void {
      base = { ...base, gateway: next.gateway };
      jobsRunning = new Set(next.gateway.jobs.running);
      servers = next.mcpServers.slice();
      cached = undefined;
    },
    /**
     * Counts failed deliveries by id from now on, starting from `ids` (D's list, read after the
     * snapshot). False when a reset came first: that snapshot needs a seed of its own.
     */
    async seedFailed(ids: Promise<readonly string[]>): Promise<boolean> {
      const seen = new Map<string, boolean>();
      seeding = seen;
      try {
        const listed = await ids;
        if (seeding !== seen) return false;
        failedIds = new Set(listed);
        for (const [id, ok] of seen) markFailed(failedIds, id, ok);
        cached = undefined;
        return true;
      } finally {
        if (seeding === seen) seeding = undefined;
      }
    },
    /** A console's own output (a notice turned into an Output entry). */
    addOutput(entry: OutputEntry): void {
      addOutput(entry);
      cached = undefined;
    },
    state(): GatewayState {
      cached ??= {
        gateway: { ...base.gateway, approvalsPending: approvals.length, jobs: { ...base.gateway.jobs, running: [...jobsRunning] } },
        approvals, approvalHistory: history, grants, mcpServers: servers, jobs, webhooks: webhooks.rows(), outputs, logs: logs.slice(-MAX_LOG_LINES),
        runsInFlight: [...inFlight], runNodes, failedDeliveries: failedIds?.size ?? base.failedDeliveries,
      };
      return cached;
    },
  };
}

function markFailed(ids: Set<string>, id: string, ok: boolean): void {
  if (ok) ids.delete(id);
  else ids.add(id);
}

export type ReadModel = ReturnType<typeof createReadModel>;
