import type { Logger } from 'pino';
import type { RunResult } from '../agent/types.js';
import type { GatewayEvent } from '../operations/state.js';
import type { EventChannel } from '../store/pg/event-channel.js';
import type { NodeView } from '../store/pg/nodes.js';
import { repeatedFailure } from '../infra/repeated-failure.js';

/**
 * The events a console on any node shows for the whole cluster: webhook requests, runs and their
 * ends, agent runs in flight (the header's `runs N`, the runs overlay), and output deliveries that
 * change the header's failed count (`relayedDelivery`).
 */
export const RELAYED_EVENTS: ReadonlySet<GatewayEvent['type']> = new Set(['webhook.received', 'webhook.runStarted', 'webhook.completed', 'run.started', 'run.finished', 'delivery.finished']);

/**
 * A delivery's end matters to other nodes' consoles only when it changes the failed count: a
 * failure, or a retry (one that delivers takes the record off). A first send that delivered, the
 * common case under a webhook flood, stays home.
 */
function relayedDelivery(event: GatewayEvent): boolean {
  return event.type !== 'delivery.finished' || !event.data.result.ok || event.data.retry === true;
}

/** Events of one node gathered this long into one NOTIFY (a flood is tens of notifications a second, not thousands). */
const BATCH_MS = 50;
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7_500;
/** A failed run's error as far as another node's console needs it (the whole of it is in the store). */
const MAX_ERROR = 500;
/** A node's heartbeat counts its runs; one this much later than a run's start that counts none says the run ended. */
const BEAT_MARGIN_MS = 1_000;

type RunStarted = Extract<GatewayEvent, { type: 'run.started' }>['data'];

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
 * node's deliveries and runs with the node that handles each. They never reach this node's own
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
  const publishFailures = repeatedFailure(deps.logger, 'Sending events to the other nodes (their consoles miss what is not sent)');
  const publish = (message: string) => void channel?.publish(message)
    .then(() => publishFailures.worked(), (error: unknown) => publishFailures.failed(error));
  const publishEvents = (events: string[], jobs = false) => publish(`{"node":${JSON.stringify(deps.nodeId)},"events":[${events.join(',')}]${jobs ? ',"jobs":true' : ''}}`);
  const flush = () => {
    timer = undefined;
    let jobs = jobsChanged; // said once, with the first chunk of events or alone
    jobsChanged = false;
    let chunk: string[] = [];
    let size = 0;
    for (const event of batch) {
      if (event.length > MAX_PAYLOAD) continue; // never this big in practice: a record is a few hundred bytes
      if (size + event.length > MAX_PAYLOAD) {
        publishEvents(chunk, jobs);
        jobs = false;
        chunk = [];
        size = 0;
      }
      chunk.push(event);
      size += event.length + 1;
    }
    if (chunk.length > 0 || jobs) publishEvents(chunk, jobs);
    batch = [];
  };
  const relayed = (event: GatewayEvent, node: string) => {
    if (event.type === 'run.started') remoteRuns.set(event.data.runId, { ...event.data, node });
    if (event.type === 'run.finished') remoteRuns.delete(event.data.runId);
    deps.record(event);
  };
  const received = (payload: string) => {
    try {
      const message = JSON.parse(payload) as { node: string; events?: GatewayEvent[]; approval?: string; jobs?: boolean };
      if (message.node === deps.nodeId) return;
      if (typeof message.approval === 'string') deps.approvalHeard(message.approval);
      if (message.jobs === true) deps.jobsHeard();
      for (const event of message.events ?? []) {
        // The node the event names (the sender stamps it), else the sender.
        if (RELAYED_EVENTS.has(event.type)) relayed({ ...event, data: { ...event.data, node: (event.data as { node?: string }).node ?? message.node } } as GatewayEvent, message.node);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'An unreadable event from another node was skipped');
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
    },
    /** One of this node's events (already stamped with its node). */
    send(event: GatewayEvent): void {
      if (!relayedDelivery(event)) return;
      batch.push(JSON.stringify(slim(event)));
      timer ??= setTimeout(flush, BATCH_MS);
    },
    /** An approval request recorded or decided here: every other node reads it again now. */
    announceApproval(id: string): void {
      // With an empty `events`: a node not yet upgraded reads it as an empty batch, not as an unreadable one.
      publish(JSON.stringify({ node: deps.nodeId, events: [], approval: id }));
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
      flush();
      await channel?.close();
    },
  };
}

export type EventRelay = ReturnType<typeof createEventRelay>;
