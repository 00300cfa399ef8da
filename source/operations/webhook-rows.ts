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

type Outcome = WebhookRow['outcome'];

/**
 * The last `capacity` webhook requests, newest first. A circular buffer kept as columns (one array
 * per field, a slot per row) with an index of the accepted rows by delivery id: a request, a run
 * start or a run end costs the same with 500 rows as with 5, and a request allocates no row object.
 * Under a flood a row lives for 500 requests, long enough to be promoted to V8's old generation:
 * an object per row (and its index key) was most of what the intake promoted and so most of its
 * full garbage collections. `rows()` builds the row objects when asked (the console's model, at
 * most ~30 times a second; the gateway's snapshot), reusing those of rows that did not change. Run
 * events update the accepted row of their delivery; a replay has no request of its own, so its run
 * start adds a row.
 */
export function createWebhookRing(capacity = MAX_WEBHOOK_ROWS, initial: readonly WebhookRow[] = []) {
  const atMs = new Float64Array(capacity);
  const status = new Uint16Array(capacity);
  const routes = new Array<string>(capacity);
  const events = new Array<string>(capacity);
  const deliveryIds = new Array<string>(capacity);
  const outcomes = new Array<Outcome>(capacity);
  const reasons = new Array<string | undefined>(capacity);
  const runStates = new Array<WebhookRow['runState']>(capacity);
  const runStatuses = new Array<WebhookRow['runStatus']>(capacity);
  const deliveries = new Array<WebhookRow['delivery']>(capacity);
  const nodes = new Array<string | undefined>(capacity);
  const runNodes = new Array<string | undefined>(capacity);
  /** Keys of rows seeded from a gateway's snapshot (theirs are kept); this ring's own are made of their number. */
  const seededKeys = new Array<string | undefined>(capacity);
  /** Row objects `rows()` made, until their slot changes. */
  const made = new Array<WebhookRow | undefined>(capacity);
  /** Rows ever added: the newest row's number is `added`, and it sits in slot `added % capacity`. */
  let added = 0;
  /**
   * The newest accepted or replayed row of each delivery id, by its number. Keyed by the id alone
   * (the string the row keeps: no key built per request); a row of the same id on another route is
   * found by a scan (delivery ids are unique per sender, so that is rare).
   */
  const accepted = new Map<string, number>();
  /**
   * Rows added by a run event before their request was seen (by number). In cluster mode another
   * node may run a delivery before the request's event, relayed in batches, arrives from the node
   * that answered it: the request then completes that row instead of adding a second one.
   */
  const awaitingRequest = new Set<number>();
  let copy: readonly WebhookRow[] = [];
  let dirty = true;
  // Rows seeded from a gateway's snapshot keep their keys: this ring's own keys must not collide with them.
  const prefix = `w${Math.random().toString(36).slice(2, 7)}-`;
  const runnable = (outcome: Outcome) => outcome === 'accepted' || outcome === 'replay';

  /** The number of the newest runnable row of `route` and `deliveryId` still in the ring. */
  const find = (route: string, deliveryId: string): number | undefined => {
    const newest = accepted.get(deliveryId);
    if (newest === undefined || routes[newest % capacity] === route) return newest;
    for (let number = newest - 1; number > added - capacity && number > 0; number -= 1) {
      const slot = number % capacity;
      if (deliveryIds[slot] === deliveryId && routes[slot] === route && runnable(outcomes[slot]!)) return number;
    }
    return undefined;
  };

  /** Adds a row (its run fields empty); returns its slot. Strings equal to the last row's are stored as that one's (one copy per route and event). */
  const add = (row: Pick<WebhookRow, 'atMs' | 'route' | 'event' | 'deliveryId' | 'outcome' | 'status' | 'reason' | 'node'>, key?: string): number => {
    const previous = added % capacity;
    added += 1;
    const slot = added % capacity;
    awaitingRequest.delete(added - capacity);
    if (added > capacity && runnable(outcomes[slot]!) && accepted.get(deliveryIds[slot]!) === added - capacity) accepted.delete(deliveryIds[slot]!);
    atMs[slot] = row.atMs;
    status[slot] = row.status;
    routes[slot] = routes[previous] === row.route ? routes[previous]! : row.route;
    events[slot] = events[previous] === row.event ? events[previous]! : row.event;
    deliveryIds[slot] = row.deliveryId;
    outcomes[slot] = row.outcome;
    reasons[slot] = row.reason;
    nodes[slot] = row.node;
    runStates[slot] = undefined;
    runStatuses[slot] = undefined;
    deliveries[slot] = undefined;
    runNodes[slot] = undefined;
    seededKeys[slot] = key;
    made[slot] = undefined;
    if (runnable(row.outcome)) accepted.set(row.deliveryId, added);
    dirty = true;
    return slot;
  };
  const changed = (slot: number) => {
    made[slot] = undefined;
    dirty = true;
  };
  const setRun = (slot: number, run: Pick<WebhookRow, 'runState' | 'runStatus' | 'delivery' | 'runNode'>) => {
    runStates[slot] = run.runState;
    if ('runStatus' in run) runStatuses[slot] = run.runStatus;
    if (run.delivery) deliveries[slot] = run.delivery;
    if (run.runNode) runNodes[slot] = run.runNode;
    changed(slot);
  };
  /** A row for a run whose request has not been seen here (yet). */
  const addForRun = (row: Pick<WebhookRow, 'atMs' | 'route' | 'event' | 'deliveryId' | 'outcome'>, run: Pick<WebhookRow, 'runState' | 'runStatus' | 'delivery' | 'runNode'>) => {
    setRun(add({ ...row, status: 202 }), run);
    if (row.outcome === 'accepted') awaitingRequest.add(added);
  };
  const rowAt = (slot: number, number: number): WebhookRow => {
    const row: WebhookRow = { key: seededKeys[slot] ?? `${prefix}${number}`, atMs: atMs[slot]!, route: routes[slot]!, event: events[slot]!, deliveryId: deliveryIds[slot]!, outcome: outcomes[slot]!, status: status[slot]! };
    if (reasons[slot] !== undefined) row.reason = reasons[slot];
    if (runStates[slot] !== undefined) row.runState = runStates[slot];
    if (runStatuses[slot] !== undefined) row.runStatus = runStatuses[slot];
    if (deliveries[slot] !== undefined) row.delivery = deliveries[slot];
    if (nodes[slot] !== undefined) row.node = nodes[slot];
    if (runNodes[slot] !== undefined) row.runNode = runNodes[slot];
    return row;
  };
  for (const row of initial.slice(0, capacity).reverse()) {
    const slot = add(row, row.key);
    if (row.runState !== undefined || row.runStatus !== undefined || row.delivery || row.runNode) setRun(slot, row);
  }

  return {
    rows(): readonly WebhookRow[] {
      if (dirty) {
        const count = Math.min(added, capacity);
        const rows = new Array<WebhookRow>(count);
        for (let index = 0; index < count; index += 1) {
          const number = added - index;
          const slot = number % capacity;
          rows[index] = made[slot] ??= rowAt(slot, number);
        }
        copy = rows;
        dirty = false;
      }
      return copy;
    },
    received(record: WebhookRequestRecord): void {
      if (awaitingRequest.size > 0 && record.outcome === 'accepted') {
        const number = find(record.route, record.deliveryId);
        if (number !== undefined && awaitingRequest.delete(number)) {
          const slot = number % capacity;
          atMs[slot] = record.atMs;
          status[slot] = record.status;
          if (record.node) nodes[slot] = record.node;
          return changed(slot);
        }
      }
      add(record);
    },
    runStarted(run: WebhookRunStarted): void {
      const change = { runState: 'running' as const, ...(run.node ? { runNode: run.node } : {}) };
      const number = find(run.route, run.deliveryId);
      if (number !== undefined) return setRun(number % capacity, change);
      addForRun({ atMs: run.atMs, route: run.route, event: run.event, deliveryId: run.deliveryId, outcome: run.replayOf ? 'replay' : 'accepted' }, change);
    },
    completed(done: WebhookCompleted): void {
      const change = { runState: done.state, runStatus: done.runStatus, delivery: done.delivery, ...(done.node ? { runNode: done.node } : {}) };
      const number = find(done.route, done.deliveryId);
      if (number !== undefined) return setRun(number % capacity, change);
      addForRun({ atMs: done.atMs, route: done.route, event: done.event, deliveryId: done.deliveryId, outcome: 'accepted' }, change);
    },
  };
}

type RunFields = Pick<WebhookRow, 'runState' | 'runStatus' | 'delivery' | 'runNode'>;

/** How far a row's run has come: of two rows of one delivery, a merge keeps the run of the one further on. */
function progress(row: RunFields): number {
  if (row.runState === undefined) return 0;
  if (row.runState === 'queued') return 1;
  return row.runState === 'running' ? 2 : 3;
}

const runOf = (row: RunFields): RunFields => ({ runState: row.runState, runStatus: row.runStatus, delivery: row.delivery, runNode: row.runNode });

/** Leaves out the fields a row does not have (rows built by `rowAt` never carry undefined ones). */
function defined(row: WebhookRow): WebhookRow {
  for (const field of Object.keys(row) as Array<keyof WebhookRow>) if (row[field] === undefined) delete row[field];
  return row;
}

/**
 * Cluster mode: rows another node sent (its recent requests and runs, when a console began watching
 * here; their keys made unique by the sender) laid into `current`, newest first, at most `capacity`.
 * A request and its run, seen by different nodes, make one row: the request's fields from the row
 * that saw the request (it names its node), the run's from the row further on. A row heard again
 * (the same key) replaces the one before.
 */
export function mergeWebhookRows(current: readonly WebhookRow[], incoming: readonly WebhookRow[], capacity = MAX_WEBHOOK_ROWS): WebhookRow[] {
  const rows = current.slice();
  const found = new Map<string, number>();
  // An accepted request is one row per route and delivery id; any other (refused, duplicate, replay)
  // is the same row when all it says is the same (it may have been relayed here before).
  const identity = (row: WebhookRow) => (row.outcome === 'accepted'
    ? `${row.route}\u0000${row.deliveryId}`
    : `${row.route}\u0000${row.deliveryId}\u0000${row.outcome}\u0000${row.atMs}\u0000${row.status}\u0000${row.node ?? ''}`);
  const index = (row: WebhookRow, at: number) => {
    found.set(row.key, at);
    if (!found.has(identity(row))) found.set(identity(row), at);
  };
  rows.forEach(index);
  for (const row of incoming) {
    const at = found.get(row.key) ?? found.get(identity(row));
    if (at === undefined) {
      rows.push(row);
      index(row, rows.length - 1);
      continue;
    }
    const known = rows[at]!;
    const request = row.node !== undefined && known.node === undefined ? row : known;
    const run = progress(row) >= progress(known) ? row : known;
    rows[at] = defined({ ...request, ...runOf(run), key: known.key });
  }
  return rows.sort((a, b) => b.atMs - a.atMs).slice(0, capacity);
}
