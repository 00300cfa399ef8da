import { EventEmitter } from 'node:events';

/** Every event the core emits, named `domain.pastTenseVerb` (STYLE.md section 1). */
export interface GatewayEventMap {
  'gateway.started': [{ atMs: number; pid: number }];
  'gateway.stopped': [{ atMs: number; reason: string }];
  'webhook.listening': [{ url: string; routes: string[] }];
}

export type GatewayEvents = EventEmitter<GatewayEventMap>;

export function createGatewayEvents(): GatewayEvents {
  return new EventEmitter<GatewayEventMap>();
}
