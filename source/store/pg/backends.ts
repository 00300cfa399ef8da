import type { StoreBackends } from '../async-domains.js';
import { createPgApprovalStore } from './approvals.js';
import { createPgAuditLog } from './audit.js';
import { createPgJobStore } from './jobs.js';
import { createPgOutputDeliveryStore } from './output-deliveries.js';
import type { PgStore } from './pg-store.js';
import { createPgRateLimiter } from './rate-limits.js';
import { createPgRunStore } from './runs.js';
import { createPgDeliveryStore } from './webhook-deliveries.js';
import { createPgSubscriptionStore } from './webhook-subscriptions.js';

/**
 * Every domain on one PostgreSQL store, for the node `nodeId`: the rows it takes to run are marked
 * with it, and its recovery after a restart takes only those.
 */
export function pgBackends(store: PgStore, now: () => number = Date.now, nodeId = 'local'): StoreBackends {
  return {
    deliveries: createPgDeliveryStore(store, nodeId),
    subscriptions: createPgSubscriptionStore(store),
    audit: createPgAuditLog(store, now),
    approvals: createPgApprovalStore(store, nodeId),
    runs: createPgRunStore(store, nodeId),
    jobs: createPgJobStore(store, nodeId),
    outputDeliveries: createPgOutputDeliveryStore(store, nodeId),
    rateLimits: createPgRateLimiter(store, now),
  };
}
