import type { WebhookCompleted, WebhookRequestRecord, WebhookRunStarted } from './types.js';

/** The webhook platform's events (joined into GatewayEventMap). */
export interface WebhookEventMap {
  'webhook.listening': [{ url: string; routes: string[] }];
  /** Every request to /webhooks/<name>, with its outcome and status. */
  'webhook.received': [WebhookRequestRecord];
  'webhook.runStarted': [WebhookRunStarted];
  /** A delivery's run finished and its output was delivered (or not): final state. */
  'webhook.completed': [WebhookCompleted];
}
