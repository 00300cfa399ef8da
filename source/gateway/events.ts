import { EventEmitter } from 'node:events';
import type { AgentEventMap } from '../agent/events.js';
import type { DeliveryEventMap } from '../delivery/events.js';
import type { McpEventMap } from '../mcp/events.js';
import type { JobEventMap } from '../scheduler/events.js';
import type { StoreEventMap } from '../store/events.js';
import type { WebhookEventMap } from '../webhooks/events.js';

/**
 * Every event the core emits, named `domain.pastTenseVerb` (STYLE.md section 1): each domain
 * declares its own (`<domain>/events.ts`); the gateway adds its lifecycle and config changes.
 */
export interface GatewayEventMap extends JobEventMap, WebhookEventMap, AgentEventMap, McpEventMap, DeliveryEventMap, StoreEventMap {
  'gateway.started': [{ atMs: number; pid: number }];
  'gateway.stopped': [{ atMs: number; reason: string }];
  /** A config change was applied (a form, `config set`, config.json after $EDITOR or an edit on disk). */
  'config.changed': [{ changed: string[]; restartNeeded: string[] }];
}

export type GatewayEvents = EventEmitter<GatewayEventMap>;

export function createGatewayEvents(): GatewayEvents {
  return new EventEmitter<GatewayEventMap>();
}

/** Every event name once: what the control channel's journal forwards to attached consoles. */
export const gatewayEventNames = [
  'gateway.started', 'gateway.stopped', 'webhook.listening', 'webhook.routesChanged', 'webhook.received', 'webhook.runStarted', 'webhook.completed',
  'approval.requested', 'approval.resolved', 'approval.grantsChanged', 'run.started', 'run.progressed', 'run.finished', 'mcp.statusChanged', 'mcp.toolsChanged',
  'output.delivered', 'config.changed', 'delivery.finished', 'job.started', 'job.finished', 'job.changed', 'store.faulted', 'store.recovered',
] as const satisfies ReadonlyArray<keyof GatewayEventMap>;

// Fails to compile when an event is added to the map but not to the list above.
type Missing = Exclude<keyof GatewayEventMap, (typeof gatewayEventNames)[number]>;
const everyEventListed: [Missing] extends [never] ? true : Missing = true;
void everyEventListed;
