import type { WebhookCompleted, WebhookRequestRecord, WebhookRunStarted } from './types.js';

/** The webhook platform's events (joined into GatewayEventMap). */
export interface WebhookEventMap {
  'webhook.listening': [{ url: string; routes: string[] }];
  /** A subscription was made, changed or removed, or static routes were swapped in by a config change. */
  'webhook.routesChanged': [{ name: string; change: 'subscribed' | 'unsubscribed' | 'config' }];
  /** Every request to /webhooks/<name>, with its outcome and status. */
  'webhook.received': [WebhookRequestRecord];
  'webhook.runStarted': [WebhookRunStarted];
  /** A delivery's run finished and its output was delivered (or not): final state. */
  'webhook.completed': [WebhookCompleted];
}
