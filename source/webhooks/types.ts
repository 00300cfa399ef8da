import type { DeliveryState } from '../store/webhook-deliveries.js';

/** How one request to /webhooks/<name> ended (one per request, whatever happened). */
export type RequestOutcome =
  | 'accepted' | 'duplicate' | 'ignored' | 'unknown_route' | 'too_large' | 'unauthorized'
  | 'rate_limited' | 'bad_request' | 'unsupported_type' | 'error';

export interface WebhookRequestRecord {
  route: string;
  event: string;
  deliveryId: string;
  outcome: RequestOutcome;
  status: number;
  latencyMs: number;
  /** Why it was refused, for the operator (never a secret). */
  reason?: string;
  atMs: number;
  /** Cluster mode: the node that answered the request. */
  node?: string;
}

export interface WebhookRunStarted {
  seq: number;
  route: string;
  event: string;
  deliveryId: string;
  origin: string;
  replayOf: string | null;
  atMs: number;
  /** Cluster mode: the node that runs it. */
  node?: string;
}

export interface WebhookCompleted {
  seq: number;
  route: string;
  event: string;
  deliveryId: string;
  state: Exclude<DeliveryState, 'queued' | 'running'>;
  runId: string | null;
  runStatus: string | null;
  delivery: { ok: true; detail: string } | { ok: false; reason: string };
  atMs: number;
  /** Cluster mode: the node that ran and delivered it. */
  node?: string;
}
