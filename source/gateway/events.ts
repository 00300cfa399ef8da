import { EventEmitter } from 'node:events';
import type { SessionGrant } from '../agent/approval-queue.js';
import type { RunEvent, RunResult } from '../agent/types.js';
import type { DeliveryRequest, DeliveryResult } from '../delivery/types.js';
import type { McpServerState } from '../mcp/connection.js';
import type { ApprovalRecord } from '../store/approvals.js';
import type { WebhookCompleted, WebhookRequestRecord, WebhookRunStarted } from '../webhooks/types.js';
import type { JobEventMap } from '../scheduler/events.js';

/** Every event the core emits, named `domain.pastTenseVerb` (STYLE.md section 1). */
export interface GatewayEventMap extends JobEventMap {
  'gateway.started': [{ atMs: number; pid: number }];
  'gateway.stopped': [{ atMs: number; reason: string }];
  'webhook.listening': [{ url: string; routes: string[] }];
  /** Every request to /webhooks/<name>, with its outcome and status. */
  'webhook.received': [WebhookRequestRecord];
  'webhook.runStarted': [WebhookRunStarted];
  /** A delivery's run finished and its output was delivered (or not): final state. */
  'webhook.completed': [WebhookCompleted];
  'approval.requested': [ApprovalRecord];
  'approval.resolved': [ApprovalRecord];
  /** A session grant was added (approve for the session) or revoked. */
  'approval.grantsChanged': [{ grants: SessionGrant[] }];
  'run.started': [{ runId: string; origin: string; prompt: string; atMs: number }];
  'run.progressed': [{ runId: string; origin: string; event: RunEvent }];
  'run.finished': [RunResult & { origin: string }];
  'mcp.statusChanged': [McpServerState];
  'mcp.toolsChanged': [{ server: string; tools: string[] }];
  /** An `origin` delivery for the console's Output pane. */
  'output.delivered': [{ subject: DeliveryRequest['subject']; title: string; text: string; failed: boolean; atMs: number }];
  /** The console applied a config change (a form, or config.json after $EDITOR). */
  'config.changed': [{ changed: string[]; restartNeeded: string[] }];
  'delivery.finished': [{ target: string; subject: DeliveryRequest['subject']; result: DeliveryResult }];
}

export type GatewayEvents = EventEmitter<GatewayEventMap>;

export function createGatewayEvents(): GatewayEvents {
  return new EventEmitter<GatewayEventMap>();
}

/** Every event name once: what the control channel's journal forwards to attached consoles. */
export const gatewayEventNames = [
  'gateway.started', 'gateway.stopped', 'webhook.listening', 'webhook.received', 'webhook.runStarted', 'webhook.completed',
  'approval.requested', 'approval.resolved', 'approval.grantsChanged', 'run.started', 'run.progressed', 'run.finished', 'mcp.statusChanged', 'mcp.toolsChanged',
  'output.delivered', 'config.changed', 'delivery.finished', 'job.started', 'job.finished', 'job.changed',
] as const satisfies ReadonlyArray<keyof GatewayEventMap>;

// Fails to compile when an event is added to the map but not to the list above.
type Missing = Exclude<keyof GatewayEventMap, (typeof gatewayEventNames)[number]>;
const everyEventListed: [Missing] extends [never] ? true : Missing = true;
void everyEventListed;
