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
  /** Cluster mode: the node that answered the request, and the one that ran it. */
  node?: string;
  runNode?: string;
}

export const MAX_WEBHOOK_ROWS = 500;

/**
 * The last `capacity` webhook requests, newest first. A circular buffer with an index of the
 * accepted rows by route and delivery id: a request, a run start or a run end costs the same with
 * 500 rows as with 5 (it was a shift of the whole array and a scan per event). `rows()` hands out an
 * immutable copy, made once per change, when the console model rebuilds its state (at most ~30
 * times a second). Run events update the accepted row of their delivery; a replay has no request of
 * its own, so its run start adds a row.
 */
export function createWebhookRing(capacity = MAX_WEBHOOK_ROWS, initial: readonly WebhookRow[] = []) {
  const slots: Array<WebhookRow | undefined> = new Array<WebhookRow | undefined>(capacity);
  /** Rows ever added: the newest row's number is `added`, and it sits in slot `added % capacity`. */
  let added = 0;
  /** The newest accepted or replayed row of each route and delivery id, by its number. */
  const accepted = new Map<string, number>();
  /**
   * Rows added by a run event before their request was seen (by number). In cluster mode another
   * node may run a delivery before the request's event, relayed in batches, arrives from the node
   * that answered it: the request then completes that row instead of adding a second one.
   */
  const awaitingRequest = new Set<number>();
  let copy: readonly WebhookRow[] = [];
  let dirty = true;
  let counter = 0;
  // Rows seeded from a gateway's snapshot keep its keys: this ring's own keys must not collide with them.
  const prefix = `w${Math.random().toString(36).slice(2, 7)}-`;
  const keyOf = (route: string, deliveryId: string) => `${route}\u0000${deliveryId}`;
  const runnable = (row: WebhookRow) => row.outcome === 'accepted' || row.outcome === 'replay';

  const add = (row: WebhookRow): void => {
    added += 1;
    const slot = added % capacity;
    const evicted = slots[slot];
    awaitingRequest.delete(added - capacity);
    if (evicted && runnable(evicted)) {
      const key = keyOf(evicted.route, evicted.deliveryId);
      if (accepted.get(key) === added - capacity) accepted.delete(key);
    }
    slots[slot] = row;
    if (runnable(row)) accepted.set(keyOf(row.route, row.deliveryId), added);
    dirty = true;
  };
  const update = (route: string, deliveryId: string, change: Partial<WebhookRow>): boolean => {
    const number = accepted.get(keyOf(route, deliveryId));
    if (number === undefined) return false;
    const slot = number % capacity;
    slots[slot] = { ...slots[slot]!, ...change };
    dirty = true;
    return true;
  };
  const push = (row: Omit<WebhookRow, 'key'>) => {
    counter += 1;
    add({ ...row, key: `${prefix}${counter}` });
  };
  /** A row for a run whose request has not been seen here (yet). */
  const pushForRun = (row: Omit<WebhookRow, 'key'>) => {
    push(row);
    if (row.outcome === 'accepted') awaitingRequest.add(added);
  };
  for (const row of initial.slice(0, capacity).reverse()) add(row);

  return {
    rows(): readonly WebhookRow[] {
      if (dirty) {
        const count = Math.min(added, capacity);
        const rows = new Array<WebhookRow>(count);
        for (let index = 0; index < count; index += 1) rows[index] = slots[(added - index) % capacity]!;
        copy = rows;
        dirty = false;
      }
      return copy;
    },
    received(record: WebhookRequestRecord): void {
      const number = record.outcome === 'accepted' ? accepted.get(keyOf(record.route, record.deliveryId)) : undefined;
      if (number !== undefined && awaitingRequest.delete(number)) {
        update(record.route, record.deliveryId, { atMs: record.atMs, status: record.status, ...(record.node ? { node: record.node } : {}) });
        return;
      }
      push({ atMs: record.atMs, route: record.route, event: record.event, deliveryId: record.deliveryId, outcome: record.outcome, status: record.status, reason: record.reason, ...(record.node ? { node: record.node } : {}) });
    },
    runStarted(run: WebhookRunStarted): void {
      const node = run.node ? { runNode: run.node } : {};
      if (update(run.route, run.deliveryId, { runState: 'running', ...node })) return;
      pushForRun({ atMs: run.atMs, route: run.route, event: run.event, deliveryId: run.deliveryId, outcome: run.replayOf ? 'replay' : 'accepted', status: 202, runState: 'running', ...node });
    },
    completed(done: WebhookCompleted): void {
      const change = { runState: done.state, runStatus: done.runStatus, delivery: done.delivery, ...(done.node ? { runNode: done.node } : {}) };
      if (!update(done.route, done.deliveryId, change)) pushForRun({ atMs: done.atMs, route: done.route, event: done.event, deliveryId: done.deliveryId, outcome: 'accepted', status: 202, ...change });
    },
  };
}
