import type { RequestOutcome, WebhookCompleted, WebhookRequestRecord, WebhookRunStarted } from '../webhooks/types.js';

/** One row of the Webhook deliveries pane: the request, then its run and delivery as they happen. */
export interface WebhookRow {
  /** Unique per row (a delivery id repeats across routes and for duplicates). */
  key: string;
  atMs: number;
  route: string;
  event: string;
  deliveryId: string;
  outcome: RequestOutcome | 'replay';
  status: number;
  reason?: string;
  runState?: 'queued' | 'running' | WebhookCompleted['state'];
  runStatus?: string | null;
  delivery?: WebhookCompleted['delivery'];
}

export const MAX_WEBHOOK_ROWS = 500;

/**
 * The last `capacity` webhook requests, newest first. Events change the ring in place (a burst of
 * 500 requests a second allocates no arrays); `rows()` hands out an immutable copy, made once per
 * change, when the console model rebuilds its state (at most ~30 times a second). Run events update
 * the accepted row of their delivery; a replay has no request of its own, so its run start adds a row.
 */
export function createWebhookRing(capacity = MAX_WEBHOOK_ROWS, initial: readonly WebhookRow[] = []) {
  const rows: WebhookRow[] = initial.slice(0, capacity);
  let copy: readonly WebhookRow[] = rows.slice();
  let dirty = false;
  let counter = 0;
  // Rows seeded from a gateway's snapshot keep its keys: this ring's own keys must not collide with them.
  const prefix = `w${Math.random().toString(36).slice(2, 7)}-`;
  const update = (route: string, deliveryId: string, change: Partial<WebhookRow>): boolean => {
    const index = rows.findIndex((row) => row.route === route && row.deliveryId === deliveryId && (row.outcome === 'accepted' || row.outcome === 'replay'));
    if (index < 0) return false;
    rows[index] = { ...rows[index]!, ...change };
    dirty = true;
    return true;
  };
  const push = (row: Omit<WebhookRow, 'key'>) => {
    counter += 1;
    rows.unshift({ ...row, key: `${prefix}${counter}` });
    if (rows.length > capacity) rows.length = capacity;
    dirty = true;
  };
  return {
    rows(): readonly WebhookRow[] {
      if (dirty) {
        copy = rows.slice();
        dirty = false;
      }
      return copy;
    },
    received(record: WebhookRequestRecord): void {
      push({ atMs: record.atMs, route: record.route, event: record.event, deliveryId: record.deliveryId, outcome: record.outcome, status: record.status, reason: record.reason });
    },
    runStarted(run: WebhookRunStarted): void {
      if (update(run.route, run.deliveryId, { runState: 'running' })) return;
      push({ atMs: run.atMs, route: run.route, event: run.event, deliveryId: run.deliveryId, outcome: run.replayOf ? 'replay' : 'accepted', status: 202, runState: 'running' });
    },
    completed(done: WebhookCompleted): void {
      const change = { runState: done.state, runStatus: done.runStatus, delivery: done.delivery };
      if (!update(done.route, done.deliveryId, change)) push({ atMs: done.atMs, route: done.route, event: done.event, deliveryId: done.deliveryId, outcome: 'accepted', status: 202, ...change });
    },
  };
}
