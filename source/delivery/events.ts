import type { DeliveryRequest, DeliveryResult } from './types.js';

/** Delivery's events (joined into GatewayEventMap). */
export interface DeliveryEventMap {
  /** An `origin` delivery for the console's Output pane. */
  'output.delivered': [{ subject: DeliveryRequest['subject']; title: string; text: string; failed: boolean; atMs: number }];
  'delivery.finished': [{ target: string; subject: DeliveryRequest['subject']; result: DeliveryResult }];
}
