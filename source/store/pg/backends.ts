import type { StoreBackends } from '../async-domains.js';
import { createPgApprovalStore } from './approvals.js';
import { createPgAuditLog } from './audit.js';
import { createPgJobStore } from './jobs.js';
import { createPgOutputDeliveryStore } from './output-deliveries.js';
import type { PgStore } from './pg-store.js';
import { createPgRunStore } from './runs.js';
import { createPgDeliveryStore } from './webhook-deliveries.js';
import { createPgSubscriptionStore } from './webhook-subscriptions.js';

/** Every ported domain on one PostgreSQL store. */
export function pgBackends(store: PgStore, now: () => number = Date.now): StoreBackends {
  return {
    deliveries: createPgDeliveryStore(store),
    subscriptions: createPgSubscriptionStore(store),
    audit: createPgAuditLog(store, now),
    approvals: createPgApprovalStore(store),
    runs: createPgRunStore(store),
    jobs: createPgJobStore(store),
    outputDeliveries: createPgOutputDeliveryStore(store),
  };
}
