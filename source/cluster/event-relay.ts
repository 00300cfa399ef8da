import type { Logger } from 'pino';
import type { RunResult } from '../agent/types.js';
import type { GatewayEvent } from '../operations/state.js';
import type { WebhookRow } from '../operations/webhook-rows.js';
import type { EventChannel } from '../store/pg/event-channel.js';
import type { NodeView } from '../store/pg/nodes.js';
import { repeatedFailure } from '../infra/repeated-failure.js';

/**
 * The events a console on any node shows for the whole cluster: webhook requests, runs and their
 * ends, agent runs in flight (the header's `runs N`, the runs overlay), and output deliveries that
 * change the header's failed count (`changesFailedCount`).
 */
export const RELAYED_EVENTS: ReadonlySet<GatewayEvent['type']> = new Set(['webhook.received', 'webhook.runStarted', 'webhook.completed', 'run.started', 'run.finished', 'delivery.finished']);

/**
 * A delivery's end matters to other nodes' consoles only when it changes the failed count: a
 * failure, or a retry (one that delivers takes the record off). A first send that delivered, the
 * common case under a webhook flood, stays home.
 */
function changesFailedCount(event: Extract<GatewayEvent, { type: 'delivery.finished' }>): boolean {
  return !event.data.result.ok || event.data.retry === true;
}

/** Events of one node gathered this long into one NOTIFY (a flood is tens of notifications a second, not thousands). */
const BATCH_MS = 50;
/** A node with an event subscriber says so this often; the others relay to it for three times as long after each. */
export const WATCH_RENEW_MS = 5_000;
const WATCH_LEASE_MS = 3 * WATCH_RENEW_MS;
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7_500;
/** A failed run's error as far as another node's console needs it (the whole of it is in the store). */
const MAX_ERROR = 500;
/** A node's heartbeat counts its runs; one this much later than a run's start that counts none says the run ended. */
const BEAT_MARGIN_MS = 1_000;

type RunStarted = Extract<GatewayEvent, { type: 'run.started' }>['data'];
/** A run in flight as a node lists its runs for a node that began watching: id, origin, start. */
type RunInFlight = [runId: string, origin: string, atMs: number];

interface RelayMessage {
  node: string;
  events?: GatewayEvent[];
  approval?: string;
  jobs?: boolean;
  /** The sender has an event subscriber (renewed every WATCH_RENEW_MS), or no longer has one. */
  watching?: boolean;
  /** The sender just started: nodes with a subscriber say so now instead of at their next renewal. */
  ask?: boolean;
  /** Meant for this node only (what a node shares with one that began watching). */
  to?: string;
  /** Every run the sender has in flight now: the receiver's count of its runs starts again from these. */
  runs?: RunInFlight[];
}

/** What the other nodes need of a run event: no prompt, output or tool calls (they read the stored run). */
function slim(event: GatewayEvent): GatewayEvent {
  if (event.type === 'run.started') return { type: event.type, data: { ...event.data, prompt: '' } };
  if (event.type === 'run.finished') {
    const { error, ...data } = event.data;
    return { type: event.type, data: { ...data, output: '', toolCalls: [], ...(error ? { error: error.slice(0, MAX_ERROR) } : {}) } };
  }
  return event;
}

/**
 * Cluster mode: this node's webhook and run events go to the other nodes (NOTIFY, batched), and
 * theirs come into this node's journal and read model (`record`), so attached consoles show every
 * node's deliveries and runs with the node that handles each. Only while some other node is watched
 * (has an event subscriber, `watch`): a node that begins watching gets every node's recent rows and
 * runs in flight (`share`), then their events as they happen. They never reach this node's own
 * listeners (metrics, logs): those count what this node did. Approval requests and decisions go
 * out at once (`announceApproval`) and reach the approval queue (`approvalHeard`), which reads them
 * from the store.
 */
export function createEventRelay(deps: {
  nodeId: string;
  open: (onPayload: (payload: string) => void, onTrouble: (error: unknown) => void) => Promise<EventChannel>;
  record: (event: GatewayEvent) => void;
  approvalHeard: (id: string) => void;
  /** Another node changed a job: the scheduler reads the jobs again now. */
  jobsHeard: () => void;
  /** This node's recent webhook rows (those it answered or ran), shared with a node that began watching. */
  ownRows: () => readonly WebhookRow[];
  logger: Logger;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  let channel: EventChannel | undefined;
  let batch: string[] = [];
  let jobsChanged = false;
  let timer: NodeJS.Timeout | undefined;
  // Runs in flight on other nodes, as their events said: a node that dies sends no end (`sweep`).
  const remoteRuns = new Map<string, RunStarted & { node: string }>();
  // This node's runs in flight, listed for a node that begins watching.
  const ownRuns = new Map<string, RunInFlight>();
  // Other nodes with an event subscriber, until when their last word holds.
  const watchers = new Map<string, number>();
  let watching = false;
  let renewal: NodeJS.Timeout | undefined;
  const watched = (): boolean => {
    if (watchers.size === 0) return false;
    const at = now();
    for (const [node, until] of watchers) if (until <= at) watchers.delete(node);
    return watchers.size > 0;
  };
  const publishFailures = repeatedFailure(deps.logger, 'Sending events to the other nodes (their consoles miss what is not sent)');
  const publish = (message: string) => void channel?.publish(message)
    .then(() => publishFailures.worked(), (error: unknown) => publishFailures.failed(error));
  const say = (fields: Omit<RelayMessage, 'node'>) => publish(JSON.stringify({ node: deps.nodeId, events: [], ...fields }));
  const head = `{"node":${JSON.stringify(deps.nodeId)},"events":[`;
  const flush = () => {
    timer = undefined;
    let jobs = jobsChanged; // said once, with the first chunk of events or alone
    jobsChanged = false;
    const chunks = fitted(batch, MAX_PAYLOAD);
    for (const chunk of chunks) {
      publish(`${head}${chunk.join(',')}]${jobs ? ',"jobs":true' : ''}}`);
      jobs = false;
    }
    if (jobs) say({ jobs: true });
    batch = [];
  };
  /**
   * What a node that began watching missed while this one did not relay: this node's recent rows,
   * then every run it has in flight (one notification: a node runs a few at once).
   */
  const share = (to: string) => {
    const tail = `,"to":${JSON.stringify(to)}}`;
    const rows = deps.ownRows().map((row) => JSON.stringify(row));
    const sharedHead = `${head}{"type":"webhook.rowsShared","data":{"node":${JSON.stringify(deps.nodeId)},"rows":[`;
    for (const chunk of fitted(rows, MAX_PAYLOAD - sharedHead.length - tail.length)) publish(`${sharedHead}${chunk.join(',')}]}}]${tail}`);
    say({ to, runs: [...ownRuns.values()] });
  };
  const relayed = (event: GatewayEvent, node: string) => {
    if (event.type === 'run.started') remoteRuns.set(event.data.runId, { ...event.data, node });
    if (event.type === 'run.finished') remoteRuns.delete(event.data.runId);
    deps.record(event);
  };
  const received = (payload: string) => {
    try {
      const message = JSON.parse(payload) as RelayMessage;
      const from = message.node;
      if (from === deps.nodeId || (message.to !== undefined && message.to !== deps.nodeId)) return;
      if (typeof message.approval === 'string') deps.approvalHeard(message.approval);
      if (message.jobs === true) deps.jobsHeard();
      if (message.watching === true) {
        const fresh = !((watchers.get(from) ?? 0) > now());
        watchers.set(from, now() + WATCH_LEASE_MS);
        if (fresh) share(from);
      } else if (message.watching === false) watchers.delete(from);
      if (message.ask === true && watching) say({ watching: true });
      for (const event of message.events ?? []) {
        if (event.type === 'webhook.rowsShared') {
          // Keys unique here: a row's key is unique only on the node that made it.
          const rows = event.data.rows.map((row) => ({ ...row, key: `${from}/${row.key}` }));
          deps.record({ type: event.type, data: { node: from, rows } });
        } else if (RELAYED_EVENTS.has(event.type)) {
          // The node the event names (the sender stamps it), else the sender.
          relayed({ ...event, data: { ...event.data, node: (event.data as { node?: string }).node ?? from } } as GatewayEvent, from);
        }
      }
      if (message.runs) heardRuns(from, message.runs);
    } catch (error) {
      deps.logger.warn({ err: error }, 'An unreadable event from another node was skipped');
    }
  };
  /** A node's whole list of its runs in flight: those counted here that it no longer runs end (their ends were not relayed). */
  const heardRuns = (node: string, runs: readonly RunInFlight[]) => {
    const listed = new Set(runs.map(([runId]) => runId));
    for (const run of [...remoteRuns.values()]) if (run.node === node && !listed.has(run.runId)) ended(run, `ended on node ${node} while no console watched`);
    for (const [runId, origin, atMs] of runs) {
      if (!remoteRuns.has(runId)) relayed({ type: 'run.started', data: { runId, origin, prompt: '', atMs, node } }, node);
    }
  };
  /** A run of another node that ended without its event reaching here: recorded as ended, so `runs N` drops it. */
  const ended = (run: RunStarted & { node: string }, why: string) => {
    const result: RunResult & { origin: string; node: string } = {
      runId: run.runId, origin: run.origin, node: run.node, status: 'cancelled', output: '', steps: 0, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 },
      error: why, startedAtMs: run.atMs, finishedAtMs: now(),
    };
    remoteRuns.delete(run.runId);
    deps.record({ type: 'run.finished', data: result });
  };
  return {
    async start(): Promise<void> {
      channel = await deps.open(received, (error) => deps.logger.warn({ err: error }, 'The event channel to the other nodes dropped; opening it again in 5 s'));
      say({ ask: true }); // the nodes watched now say so, rather than at their next renewal
    },
    /**
     * This node's event subscribers (consoles, `switchboard run`...): while it has one, it says so
     * every WATCH_RENEW_MS and the other nodes relay their webhook and run events to it.
     */
    watch(subscribers: number): void {
      const has = subscribers > 0;
      if (has === watching) return;
      watching = has;
      clearInterval(renewal);
      renewal = undefined;
      say({ watching });
      if (watching) {
        renewal = setInterval(() => say({ watching: true }), WATCH_RENEW_MS);
        renewal.unref();
      }
    },
    /**
     * One of this node's events (already stamped with its node). Webhook and run events go out only
     * while another node is watched: relaying a flood to nodes nobody looks at cost every node CPU
     * (a console that attaches later gets the recent rows and runs in flight shared at once).
     * Delivery ends that change the failed count always go (few, and every node's count uses them).
     */
    send(event: GatewayEvent): void {
      if (event.type === 'run.started') ownRuns.set(event.data.runId, [event.data.runId, event.data.origin, event.data.atMs]);
      else if (event.type === 'run.finished') ownRuns.delete(event.data.runId);
      if (event.type === 'delivery.finished' ? !changesFailedCount(event) : !watched()) return;
      batch.push(JSON.stringify(slim(event)));
      timer ??= setTimeout(flush, BATCH_MS);
    },
    /** An approval request recorded or decided here: every other node reads it again now. */
    announceApproval(id: string): void {
      // With an empty `events`: a node not yet upgraded reads it as an empty batch, not as an unreadable one.
      say({ approval: id });
    },
    /**
     * A job changed here: the other nodes read the jobs again. Gathered with this node's events (one
     * notice per 50 ms however many jobs changed); a node not yet upgraded ignores the flag.
     */
    announceJobs(): void {
      jobsChanged = true;
      timer ??= setTimeout(flush, BATCH_MS);
    },
    /** True while runs of other nodes are counted here (then `sweep` has work). */
    hasRemoteRuns: () => remoteRuns.size > 0,
    /**
     * Ends the runs of nodes that are no longer up, restarted since, or whose heartbeat counts no
     * run after the run began (its end was sent while this node's channel was reconnecting).
     */
    sweep(nodes: readonly NodeView[]): void {
      const byId = new Map(nodes.map((node) => [node.id, node]));
      for (const run of [...remoteRuns.values()]) {
        const node = byId.get(run.node);
        if (!node || node.state !== 'up') ended(run, `node ${run.node} is ${node?.state ?? 'gone'}`);
        else if (node.startedAtMs > run.atMs) ended(run, `node ${run.node} restarted`);
        else if (node.runsInFlight === 0 && node.heartbeatAtMs > run.atMs + BEAT_MARGIN_MS) ended(run, `node ${run.node} has no run in flight`);
      }
    },
    async stop(): Promise<void> {
      clearTimeout(timer);
      clearInterval(renewal);
      flush();
      if (watching) say({ watching: false });
      watching = false; // the control server's last subscribers leave after this
      await channel?.close();
    },
  };
}

export type EventRelay = ReturnType<typeof createEventRelay>;

/** JSON texts in groups whose joined length stays under `limit` (a text longer than that alone is left out: never seen in practice). */
function fitted(texts: readonly string[], limit: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const text of texts) {
    if (text.length > limit) continue;
    if (size + text.length > limit) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(text);
    size += text.length + 1;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
