import type { Store } from '../store/database.js';
import type { AcceptOutcome, DeliveryStore, NewDelivery } from '../store/webhook-deliveries.js';

/**
 * Group commit for the intake: accepts that arrive in the same event-loop turn share one write
 * transaction, decided in arrival order (so duplicates inside a batch are still caught). A commit
 * per request was the intake's largest cost under load; the answer still waits for the commit.
 */
export function createAcceptBatcher(deliveries: Pick<DeliveryStore, 'acceptMany'>) {
  let pending: Array<{ row: NewDelivery; dedupUntilMs?: number; resolve: (outcome: AcceptOutcome) => void; reject: (error: unknown) => void }> = [];

  const flush = (): void => {
    const batch = pending;
    pending = [];
    try {
      const outcomes = deliveries.acceptMany(batch);
      batch.forEach((entry, index) => entry.resolve(outcomes[index]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };

  return (row: NewDelivery, dedupUntilMs?: number): Promise<AcceptOutcome> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ row, dedupUntilMs, resolve, reject });
    });
}

/**
 * Group commit for the run queue's bookkeeping (run recorded, final state): writes queued in one
 * event-loop turn share one transaction. Each promise settles after its commit, so a caller that
 * awaits it knows the write is durable (the run queue records a run before delivering it).
 */
export function createWriteBatcher(store: Pick<Store, 'transaction'>) {
  let pending: Array<{ work: () => void; resolve: () => void; reject: (error: unknown) => void }> = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    try {
      store.transaction(() => batch.forEach((entry) => entry.work()));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (work: () => void): Promise<void> =>
    new Promise((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ work, resolve, reject });
    });
}

export type WriteBatcher = ReturnType<typeof createWriteBatcher>;
