import { deliveredOnRetry } from '../delivery/on-retry.js';
import type { DeliverySubject } from '../delivery/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { DeliveryBackend } from '../store/async-domains.js';

export interface RedeliveredDeps {
  deliveries: Pick<DeliveryBackend, 'get' | 'findByDeliveryId' | 'redelivered'>;
  events?: Pick<GatewayEvents, 'emit'>;
  now: () => number;
}

/**
 * A webhook delivery whose output could not be delivered, sent since by `deliveries retry`: it
 * becomes `delivered` (the first failure kept in its detail), and consoles hear it as its final
 * state (webhook.completed). One whose run failed, or that is delivered already, stays as it is.
 * True when it changed.
 */
export async function recordRedelivery(deps: RedeliveredDeps, subject: Extract<DeliverySubject, { kind: 'webhook' }>, detail: string): Promise<boolean> {
  // Records written before the delivery row's id was kept: the latest delivery of that id.
  const row = subject.seq !== undefined ? await deps.deliveries.get(subject.seq) : await deps.deliveries.findByDeliveryId(subject.deliveryId);
  if (!row || row.route !== subject.route || row.deliveryId !== subject.deliveryId || row.state !== 'delivery_failed') return false;
  const kept = deliveredOnRetry(detail, row.deliveryDetail);
  if (!(await deps.deliveries.redelivered(row.seq, kept))) return false;
  deps.events?.emit('webhook.completed', {
    seq: row.seq, route: row.route, event: row.event, deliveryId: row.deliveryId, state: 'delivered', runId: row.runId, runStatus: row.runStatus,
    delivery: { ok: true, detail: kept }, atMs: deps.now(),
    // Cluster mode: still the node that ran it, not the one that retried (the store keeps that one too).
    ...(row.node ? { node: row.node } : {}),
  });
  return true;
}
