import type { DeliveryRequest, DeliveryResult } from './types.js';

/** Delivery's events (joined into GatewayEventMap). */
export interface DeliveryEventMap {
  /** An `origin` delivery for the console's Output pane. */
  'output.delivered': [{ subject: DeliveryRequest['subject']; title: string; text: string; failed: boolean; atMs: number }];
  /** `retry`: a send of a recorded delivery again (`deliveries retry`), which may take it off the failed ones. */
  'delivery.finished': [{ target: string; subject: DeliveryRequest['subject']; result: DeliveryResult; retry?: true }];
}
