import type { ApprovalQueue } from '../agent/approval-queue.js';
import type { RunAgent } from '../agent/types.js';
import type { DeliveryService } from '../delivery/deliver.js';
import { describeSubject } from '../delivery/log-target.js';
import type { GatewayEvents, GatewayEventMap } from '../gateway/events.js';
import type { Gateway, GatewaySnapshot } from '../gateway/gateway.js';
import type { McpCommands } from '../mcp/gateway-component.js';
import type { McpServerView } from '../mcp/manager.js';
import type { JobsCore } from '../scheduler/scheduler.js';
import type { JobRow } from '../store/jobs.js';
import type { ApprovalRecord } from '../store/approvals.js';
import type { LogLine, LogRing } from '../infra/log-ring.js';
import { createWebhookRing, type WebhookRow } from '../operations/webhook-rows.js';

/** What the console uses of the core: commands, events and snapshot() (STYLE.md section 1). */
export interface ConsoleGateway {
  events: GatewayEvents;
  snapshot(): GatewaySnapshot;
  approvals: ApprovalQueue;
  runAgent: RunAgent;
  deliveries: DeliveryService;
  mcp: Pick<McpCommands, 'reload' | 'reconnect' | 'list' | 'stderrTail' | 'login'>;
  webhooks: Gateway['webhooks'];
  jobs: JobsCore;
  config: Gateway['config'];
}

export interface OutputEntry {
  id: string;
  atMs: number;
  title: string;
  text: string;
  ok: boolean;
}

export interface ConsoleState {
  version: number;
  snapshot: GatewaySnapshot;
  approvals: ApprovalRecord[];
  logs: readonly LogLine[];
  outputs: readonly OutputEntry[];
  runsInFlight: number;
  failedDeliveries: number;
  mcpServers: McpServerView[];
  /** The last 500 webhook requests, newest first, with their run and delivery. */
  webhooks: readonly WebhookRow[];
  /** Every job, paused ones too. */
  jobs: JobRow[];
}

const MAX_OUTPUTS = 200;
/** Changes folded into one frame that mark a flood (a webhook burst), not someone at the keyboard. */
const FLOOD_CHANGES = 50;

/**
 * Folds gateway events into one immutable state for the UI. Bursts are batched: listeners hear
 * at most one change per `flushMs`, and one per `burstFlushMs` while changes keep coming, so a
 * flood of webhooks cannot flood the renderer.
 */
export function createConsoleModel(deps: { gateway: ConsoleGateway; logRing?: LogRing; flushMs?: number; burstFlushMs?: number }) {
  const { gateway } = deps;
  const listeners = new Set<() => void>();
  const inFlight = new Set<string>();
  let outputs: OutputEntry[] = [];
  const webhookRing = createWebhookRing();
  let state: ConsoleState = build(0);
  let timer: NodeJS.Timeout | undefined;

  function build(version: number): ConsoleState {
    return {
      version,
      snapshot: gateway.snapshot(),
      approvals: gateway.approvals.pending(),
      logs: deps.logRing ? deps.logRing.lines() : [],
      outputs,
      runsInFlight: inFlight.size,
      failedDeliveries: gateway.deliveries.history?.countFailed() ?? 0,
      mcpServers: gateway.mcp.list(),
      webhooks: webhookRing.rows(),
      jobs: gateway.jobs.list({ all: true }),
    };
  }

  // A change is drawn within flushMs (33: at most ~30 frames a second). When the last frame folded a
  // flood of changes (a burst of webhooks brings five events each), the next waits burstFlushMs: each
  // frame costs Ink and Yoga milliseconds, and ten frames a second are still live. Key presses and
  // single events keep the short delay.
  const flushMs = deps.flushMs ?? 33;
  const burstFlushMs = Math.max(flushMs, deps.burstFlushMs ?? 100);
  let changes = 0;
  let flooded = false;
  const changed = () => {
    changes += 1;
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      flooded = changes >= FLOOD_CHANGES;
      changes = 0;
      state = build(state.version + 1);
      listeners.forEach((listener) => listener());
    }, flooded ? burstFlushMs : flushMs);
  };

  const handlers: { [K in keyof GatewayEventMap]?: (...args: GatewayEventMap[K]) => void } = {
    'run.started': ({ runId }) => { inFlight.add(runId); },
    'run.finished': (result) => {
      inFlight.delete(result.runId);
      if (result.origin === 'console') {
        outputs = [{ id: result.runId, atMs: result.finishedAtMs, title: `console run ${result.runId.slice(0, 8)} ${result.status}`, text: result.error ? `${result.error}\n${result.output}` : result.output, ok: result.status === 'ok' }, ...outputs].slice(0, MAX_OUTPUTS);
      }
    },
    'delivery.finished': () => {},
    'webhook.received': (record) => webhookRing.received(record),
    'webhook.runStarted': (run) => webhookRing.runStarted(run),
    'webhook.completed': (done) => webhookRing.completed(done),
    'output.delivered': (output) => {
      outputs = [{ id: `${output.atMs}-${outputs.length}`, atMs: output.atMs, title: describeSubject(output), text: output.text, ok: !output.failed }, ...outputs].slice(0, MAX_OUTPUTS);
    },
  };
  const subscriptions: Array<() => void> = [];
  for (const name of Object.keys(handlers) as Array<keyof GatewayEventMap>) {
    const handler = (...args: never[]) => { (handlers[name] as (...a: never[]) => void)(...args); changed(); };
    gateway.events.on(name, handler as never);
    subscriptions.push(() => gateway.events.off(name, handler as never));
  }
  // Everything else that the panes show comes from snapshot() and the queue: any event is a reason to look again.
  for (const name of ['approval.requested', 'approval.resolved', 'gateway.started', 'gateway.stopped', 'webhook.listening', 'run.progressed',
    'mcp.statusChanged', 'mcp.toolsChanged', 'job.started', 'job.finished', 'job.changed', 'config.changed'] as const) {
    gateway.events.on(name, changed);
    subscriptions.push(() => gateway.events.off(name, changed));
  }
  if (deps.logRing) subscriptions.push(deps.logRing.onLine(changed));

  return {
    getState: () => state,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    /** For a clock tick or a resize: rebuild from the core now. */
    refresh: changed,
    addOutput(entry: OutputEntry) {
      outputs = [entry, ...outputs].slice(0, MAX_OUTPUTS);
      changed();
    },
    dispose() {
      if (timer) clearTimeout(timer);
      subscriptions.forEach((unsubscribe) => unsubscribe());
      listeners.clear();
    },
  };
}

export type ConsoleModel = ReturnType<typeof createConsoleModel>;
