import { createApprovalStore, type ApprovalStore } from './approvals.js';
import { createAuditLog, type AuditLog } from './audit.js';
import type { Store } from './database.js';
import { createJobStore, type JobStore } from './jobs.js';
import { createOutputDeliveryStore, type OutputDeliveryStore } from './output-deliveries.js';
import { createRunStore, type RunStore } from './runs.js';
import { createDeliveryStore, type DeliveryRecord, type DeliveryStore, type NewDelivery } from './webhook-deliveries.js';
import { createSubscriptionStore, type SubscriptionStore } from './webhook-subscriptions.js';

/**
 * Step one of cluster mode (issue #19, docs/cluster.md): the store domains as asynchronous
 * operations, the shape every backend offers. It is derived from the SQLite domain itself, so the
 * PostgreSQL backend has to follow any change made there (the compiler says where). The gateway
 * reaches its domains through these (`GatewayDeps.backends`).
 */
export type AsyncDomain<T, Without extends keyof T = never> = {
  [K in Exclude<keyof T, Without>]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/** Accepted webhook deliveries (the run queue and the idempotency record); `accept` settles once durable. */
/** The intake's synchronous helpers (SyncIntake) are SQLite's only. */
export type DeliveryBackend = AsyncDomain<DeliveryStore, 'committed' | 'acceptCommitted' | 'seenSince' | 'isRecorded' | 'keysBefore' | 'fault' | 'classifyFault'> & {
  /**
   * PostgreSQL: an accept that also claims the delivery for this node, held since `startedAtMs`,
   * in the same statement (the run queue's `reserve`: a free slot and nothing queued), unless the
   * store holds queued deliveries (then it is queued behind them, without `record`). Settles once
   * durable, with the row as a claim would have returned it. SQLite has none: its claim is a write
   * in the same process, grouped with others into one commit.
   */
  acceptClaimed?(row: NewDelivery, dedupWindowMs: number | undefined, startedAtMs: number): Promise<{ kind: 'accepted'; seq: number; record?: DeliveryRecord } | { kind: 'duplicate' }>;
};
export type SubscriptionBackend = AsyncDomain<SubscriptionStore>;
export type AuditBackend = AsyncDomain<AuditLog>;
export type ApprovalBackend = AsyncDomain<ApprovalStore>;
export type RunBackend = AsyncDomain<RunStore> & WritesInOrder;
export type JobBackend = AsyncDomain<JobStore>;
export type OutputDeliveryBackend = AsyncDomain<OutputDeliveryStore> & WritesInOrder;

interface WritesInOrder {
  /**
   * True when a write is made (or queued) in the call itself and writes commit in the order they
   * are made: a later write of this process on the runs' path never lands without it. SQLite: one
   * connection, grouped commits. PostgreSQL: record writes carried by the next claim or final
   * state (source/store/pg/carried-writes.ts).
   */
  readonly writesInOrder?: boolean;
}

/**
 * SQLite's synchronous accept with commits grouped per event-loop turn: the intake's fast path
 * (source/webhooks/platform.ts). Backends that answer over the network have none.
 */
export type SyncIntake = Pick<DeliveryStore, 'accept' | 'committed' | 'acceptCommitted' | 'seenSince' | 'isRecorded' | 'keysBefore' | 'fault' | 'classifyFault'>;

/**
 * Per-route webhook rate limits held in the store, for backends several nodes share: the window
 * then holds for the cluster. Backends without it leave the limit to each process (in memory).
 */
export interface RateLimitBackend {
  /** At once when the answer is known without the store (PostgreSQL: a slot taken ahead). */
  check(route: string, limit: number): RateAnswer | Promise<RateAnswer>;
}
type RateAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface StoreBackends {
  deliveries: DeliveryBackend;
  intake?: SyncIntake;
  subscriptions: SubscriptionBackend;
  audit: AuditBackend;
  approvals: ApprovalBackend;
  runs: RunBackend;
  jobs: JobBackend;
  outputDeliveries: OutputDeliveryBackend;
  /** Cluster-wide rate limits (PostgreSQL); without it the webhook platform counts in memory. */
  rateLimits?: RateLimitBackend;
}

/** Every function of `domain` answering through a promise (a throw becomes a rejection). */
export function asynchronous<T extends object>(domain: T): AsyncDomain<T> {
  return Object.fromEntries(Object.entries(domain).map(([name, value]) => [name,
    typeof value === 'function' ? async (...args: unknown[]) => (value as (...a: unknown[]) => unknown)(...args) : value])) as AsyncDomain<T>;
}

/** The SQLite store's domains behind the asynchronous operations. */
export function sqliteBackends(store: Store, now: () => number = Date.now): StoreBackends {
  const { committed, acceptCommitted, seenSince, isRecorded, keysBefore, fault, classifyFault, ...deliveries } = createDeliveryStore(store);
  const sync = asynchronous(deliveries);
  return {
    deliveries: {
      ...sync,
      // Durable when they settle, as the other backends promise: while commits are grouped, after the commit.
      async accept(row, dedupWindowMs) {
        const outcome = await sync.accept(row, dedupWindowMs);
        await committed();
        return outcome;
      },
      async claimQueued(nowMs, limit) {
        const rows = await sync.claimQueued(nowMs, limit);
        if (rows.length > 0) await committed();
        return rows;
      },
    },
    intake: { accept: deliveries.accept, committed, acceptCommitted, seenSince, isRecorded, keysBefore, fault, classifyFault },
    subscriptions: asynchronous(createSubscriptionStore(store)),
    audit: asynchronous(createAuditLog(store, now)),
    approvals: asynchronous(createApprovalStore(store)),
    runs: asynchronous(createRunStore(store)),
    jobs: asynchronous(createJobStore(store)),
    outputDeliveries: { ...asynchronous(createOutputDeliveryStore(store)), writesInOrder: true },
  };
}
