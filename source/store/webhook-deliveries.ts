import type { DeliverExtra } from '../delivery/types.js';
import type { Store } from './database.js';
import { StoreUnavailableError } from './store-fault.js';

/** Lifecycle of an accepted webhook delivery. */
/** `silent`: the run answered [SILENT] (delivery/silent.ts), so nothing was sent; the reason is the detail. */
export type DeliveryState = 'queued' | 'running' | 'delivered' | 'silent' | 'failed' | 'delivery_failed';

export interface NewDelivery {
  route: string;
  deliveryId: string;
  event: string;
  headers: Record<string, string>;
  body: Uint8Array;
  prompt: string;
  skills: string[];
  target: string;
  targetExtra: DeliverExtra;
  replayOf?: string;
  receivedAtMs: number;
}

export interface DeliveryRecord {
  /** Row id: the queue order. */
  seq: number;
  route: string;
  deliveryId: string;
  event: string;
  headers: Record<string, string>;
  prompt: string;
  skills: string[];
  target: string;
  targetExtra: DeliverExtra;
  state: DeliveryState;
  replayOf: string | null;
  runId: string | null;
  runStatus: string | null;
  output: string | null;
  error: string | null;
  deliveryDetail: string | null;
  receivedAtMs: number;
  startedAtMs: number | null;
  finishedAtMs: number | null;
  /** Cluster mode: the node that claimed it (runs or ran it); null while queued. Absent on SQLite (one node). */
  node?: string | null;
}

/**
 * A delivery as one claim of it holds it: its row and the time of the claim (\`started_at_ms\`). On
 * PostgreSQL a write for a claim that no longer holds the row (another node took the work over
 * while this one was silent, docs/cluster.md) changes nothing; on SQLite one gateway holds every row.
 */
export type HeldDelivery = Pick<DeliveryRecord, 'seq' | 'startedAtMs'>;

export type AcceptOutcome = { kind: 'accepted'; seq: number } | { kind: 'duplicate' };

const columns = `id AS seq, route, delivery_id AS deliveryId, event, headers, prompt, skills, target, target_extra AS targetExtra, state,
  replay_of AS replayOf, run_id AS runId, run_status AS runStatus, output, error, delivery_detail AS deliveryDetail,
  received_at_ms AS receivedAtMs, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs`;

/**
 * Field by field, not `{ ...row }`: a spread of node:sqlite's row object cost about twice as much
 * (4 µs a row, measured; every claim reads rows), and the records keep one shape.
 */
function fromRow(value: Record<string, unknown> | undefined): DeliveryRecord | undefined {
  if (!value) return undefined;
  const row = value as unknown as DeliveryRecord & { headers: string; skills: string; targetExtra: string };
  return {
    seq: row.seq, route: row.route, deliveryId: row.deliveryId, event: row.event,
    headers: JSON.parse(row.headers) as Record<string, string>,
    prompt: row.prompt,
    skills: row.skills === '[]' ? [] : (JSON.parse(row.skills) as string[]),
    target: row.target,
    targetExtra: row.targetExtra === '{}' ? {} : (JSON.parse(row.targetExtra) as DeliverExtra),
    state: row.state, replayOf: row.replayOf, runId: row.runId, runStatus: row.runStatus, output: row.output, error: row.error,
    deliveryDetail: row.deliveryDetail, receivedAtMs: row.receivedAtMs, startedAtMs: row.startedAtMs, finishedAtMs: row.finishedAtMs,
  };
}

/**
 * A running delivery whose agent run finished (its runs row says so) before the crash let the
 * queue record it: recovery takes that result instead of running the model again. The origin is
 * the one the run queue gives webhook runs (`webhook:<route>:<delivery id>`); a run cancelled by a
 * stop is run again.
 */
export const FINISHED_RUN_OF_DELIVERY = (table: string) => `${table}.state = 'running' AND ${table}.run_status IS NULL
  AND r.origin = 'webhook:' || ${table}.route || ':' || ${table}.delivery_id
  AND r.status NOT IN ('running', 'interrupted', 'cancelled') AND r.started_at_ms >= ${table}.started_at_ms`;

/**
 * Accepted webhook deliveries: the durable run queue, and the record idempotency is checked against.
 * Shared by the gateway and the `switchboard webhook` commands in other processes.
 */
/** An agent run's result as a delivery keeps it. */
export interface RecordedRun { runId: string; status: string; output: string; error?: string }

export function createDeliveryStore(store: Store) {
  const { db } = store;
  const insert = db.prepare(`INSERT INTO webhook_deliveries (route, delivery_id, event, headers, body, prompt, skills, target, target_extra, state, replay_of, received_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`);
  // The idempotency check: has the route accepted this delivery id after the given time? Run before a
  // plain insert in the same write transaction (one statement writes). Not as one INSERT ... SELECT ...
  // WHERE NOT EXISTS: reading the table it inserts into, SQLite copies the row through a temporary
  // table first, which cost more than this second call (about 3 of 13 µs per accept).
  // INDEXED BY: without statistics the planner picks the route index, a scan of the route's whole history.
  // Replays carry their own ids (`<id>.replay-<n>`) and generated ids are unique, so neither matches.
  const seen = db.prepare(`SELECT 1 AS seen FROM webhook_deliveries INDEXED BY webhook_deliveries_delivery
    WHERE delivery_id = ? AND route = ? AND received_at_ms > ? LIMIT 1`);
  const keysBefore = db.prepare('SELECT id, route, delivery_id AS deliveryId, received_at_ms AS receivedAtMs FROM webhook_deliveries WHERE id < ? ORDER BY id DESC LIMIT ?');
  const recorded = db.prepare(`SELECT 1 AS seen FROM webhook_deliveries INDEXED BY webhook_deliveries_delivery
    WHERE delivery_id = ? AND route = ? AND received_at_ms = ? LIMIT 1`);
  // One statement: the oldest queued row becomes running and comes back (no separate read, no race).
  // `id = (subquery)`, not `id IN (subquery ... LIMIT n)`: SQLite runs the IN form with RETURNING about
  // 30 times slower (80 µs against 2.5 µs here), even when nothing is queued.
  // Several rows are claimed by running it once per row, in one commit.
  const claim = db.prepare(`UPDATE webhook_deliveries SET state = 'running', started_at_ms = ?
    WHERE id = (SELECT id FROM webhook_deliveries WHERE state = 'queued' ORDER BY id LIMIT 1) RETURNING ${columns}`);
  const recordRun = db.prepare('UPDATE webhook_deliveries SET run_id = ?, run_status = ?, output = ?, error = ? WHERE id = ?');
  const finish = db.prepare('UPDATE webhook_deliveries SET state = ?, delivery_detail = ?, finished_at_ms = ? WHERE id = ?');
  const finishWithRun = db.prepare('UPDATE webhook_deliveries SET state = ?, delivery_detail = ?, finished_at_ms = ?, run_id = ?, run_status = ?, output = ?, error = ? WHERE id = ?');
  const redelivered = db.prepare(`UPDATE webhook_deliveries SET state = 'delivered', delivery_detail = ? WHERE id = ? AND state = 'delivery_failed'`);
  const requeue = db.prepare(`UPDATE webhook_deliveries SET state = 'queued', started_at_ms = NULL WHERE id = ? AND state = 'running'`);
  const interrupted = db.prepare(`SELECT id FROM webhook_deliveries WHERE state = 'running' AND run_status IS NULL`);
  const adoptFinishedRuns = db.prepare(`UPDATE webhook_deliveries SET run_id = r.id, run_status = r.status, output = r.output, error = r.error
    FROM runs AS r WHERE ${FINISHED_RUN_OF_DELIVERY('webhook_deliveries')}`);
  const requeueInterrupted = db.prepare(`UPDATE webhook_deliveries SET state = 'queued', started_at_ms = NULL WHERE state = 'running' AND run_status IS NULL`);
  const finishedRunning = db.prepare(`SELECT ${columns} FROM webhook_deliveries WHERE state = 'running' AND run_status IS NOT NULL ORDER BY id`);
  const bySeq = db.prepare(`SELECT ${columns} FROM webhook_deliveries WHERE id = ?`);
  const body = db.prepare('SELECT body FROM webhook_deliveries WHERE id = ?');
  const byDeliveryId = db.prepare(`SELECT ${columns} FROM webhook_deliveries WHERE delivery_id = ? ORDER BY id DESC LIMIT 1`);
  const replayCount = db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE replay_of = ?');
  const recent = db.prepare(`SELECT ${columns} FROM webhook_deliveries ORDER BY id DESC LIMIT ?`);
  const recentForRoute = db.prepare(`SELECT ${columns} FROM webhook_deliveries WHERE route = ? ORDER BY id DESC LIMIT ?`);
  const counts = db.prepare('SELECT state, COUNT(*) AS n FROM webhook_deliveries GROUP BY state');

  const values = (row: NewDelivery) => [row.route, row.deliveryId, row.event, JSON.stringify(row.headers), row.body, row.prompt, JSON.stringify(row.skills),
    row.target, JSON.stringify(row.targetExtra), row.replayOf ?? null, row.receivedAtMs] as const;

  const insertRow = (row: NewDelivery): number => Number(insert.run(...values(row)).lastInsertRowid);

  const acceptOne = (row: NewDelivery, dedupWindowMs?: number): AcceptOutcome => {
    if (dedupWindowMs !== undefined && seen.get(row.deliveryId, row.route, row.receivedAtMs - dedupWindowMs) !== undefined) return { kind: 'duplicate' };
    // The arguments written out (no values array spread per accept); no skills or extra is the usual case.
    const result = insert.run(row.route, row.deliveryId, row.event, JSON.stringify(row.headers), row.body, row.prompt,
      row.skills.length === 0 ? '[]' : JSON.stringify(row.skills), row.target, jsonObjectText(row.targetExtra), row.replayOf ?? null, row.receivedAtMs);
    return { kind: 'accepted', seq: Number(result.lastInsertRowid) };
  };

  return {
    /**
     * Persists an accepted delivery, or reports a duplicate when `dedupWindowMs` is given and the
     * route accepted this delivery id less than that long ago. The check and the insert run in one
     * write transaction, so concurrent requests (even from several processes) with one id accept
     * exactly once. While the store groups commits, the outcome is decided at once and the caller
     * awaits `committed()`.
     */
    accept(row: NewDelivery, dedupWindowMs?: number): AcceptOutcome {
      return store.write(() => acceptOne(row, dedupWindowMs));
    },
    /** Whether the route accepted this delivery id after `sinceMs` (the idempotency check alone). */
    seenSince: (route: string, deliveryId: string, sinceMs: number): boolean => seen.get(deliveryId, route, sinceMs) !== undefined,
    /** Whether this very delivery (route, id and time of receipt) is recorded: the intake journal's recovery. */
    isRecorded: (row: Pick<NewDelivery, 'route' | 'deliveryId' | 'receivedAtMs'>): boolean => recorded.get(row.deliveryId, row.route, row.receivedAtMs) !== undefined,
    /** Deliveries before row `beforeSeq`, newest first, keys only: the burst intake's seen filter is filled from them at start. */
    keysBefore: (beforeSeq: number, limit: number) => keysBefore.all(beforeSeq, limit) as Array<{ id: number; route: string; deliveryId: string; receivedAtMs: number }>,
    /** The store's current fault and the classification of a failed write beside it (group-commit.ts). */
    fault: () => store.fault(),
    classifyFault: (error: unknown) => store.classifyFault(error),
    /** Settles when every write so far (accepts included) is committed. */
    committed: () => store.committed(),
    /** committed() for the intake: the first 202 of a turn commits at once (see CommitGroups.commitSoon). */
    acceptCommitted: () => store.commitSoon(),
    /** A replay: a new queued delivery copied from a recorded one, under an id of its own. */
    enqueueReplay(original: DeliveryRecord, now: number): DeliveryRecord {
      return store.transaction(() => {
        const n = Number((replayCount.get(original.deliveryId) as { n: number }).n) + 1;
        const raw = (body.get(original.seq) as { body: Uint8Array }).body;
        const seq = insertRow({ ...original, deliveryId: `${original.deliveryId}.replay-${n}`, body: raw, replayOf: original.deliveryId, receivedAtMs: now });
        return fromRow(bySeq.get(seq) as Record<string, unknown>)!;
      });
    },
    /**
     * Takes up to `limit` of the oldest queued deliveries and marks them running; oldest first (FIFO).
     * One write per row, all in the open group's commit.
     */
    claimQueued(now: number, limit: number): DeliveryRecord[] {
      const rows: DeliveryRecord[] = [];
      while (rows.length < limit) {
        let row: Record<string, unknown> | undefined;
        try {
          row = store.write(() => claim.get(now));
        } catch (error) {
          // A store fault undid the open group, the claims before this one included (the gateway
          // groups its writes; without grouping they stay running until the next start requeues them).
          if (rows.length === 0 || error instanceof StoreUnavailableError) throw error;
          break; // this statement alone failed: the claims before it stand
        }
        if (!row) break;
        rows.push(fromRow(row)!);
      }
      return rows;
    },
    /**
     * The agent finished: its result is recorded before delivery, so a crash now never re-runs it.
     * Kept (store.keep): settles once committed, however long another process holds the lock.
     */
    recordRun(held: HeldDelivery, run: RecordedRun): Promise<void> {
      return store.keep(() => recordRun.run(run.runId, run.status, run.output, run.error ?? null, held.seq));
    },
    /**
     * The final state, with the run's result when it was not recorded before (`run`); kept like
     * recordRun. True: recorded (one gateway holds every row of a SQLite home).
     */
    async finish(held: HeldDelivery, state: Exclude<DeliveryState, 'queued' | 'running'>, detail: string, now: number, run?: RecordedRun): Promise<boolean> {
      await store.keep(() => (run ? finishWithRun.run(state, detail, now, run.runId, run.status, run.output, run.error ?? null, held.seq) : finish.run(state, detail, now, held.seq)));
      return true;
    },
    /**
     * Its output was delivered since by `deliveries retry`: a `delivery_failed` delivery becomes
     * `delivered` with `detail`. True when it changed (another state, a run that failed, stays).
     */
    redelivered(seq: number, detail: string): boolean {
      return store.transaction(() => Number(redelivered.run(detail, seq).changes) > 0);
    },
    /** Puts a running delivery back in the queue (the gateway stopped mid-run); if this is lost, the next start requeues it anyway. */
    requeue(held: HeldDelivery): Promise<void> {
      return store.keep(() => requeue.run(held.seq));
    },
    /**
     * After a crash: runs that never finished go back to the queue (in their original order);
     * runs that finished but were not delivered are returned, to be delivered without running again.
     */
    recover(): { requeued: number; undelivered: DeliveryRecord[] } {
      return store.transaction(() => {
        adoptFinishedRuns.run();
        const requeued = interrupted.all().length;
        requeueInterrupted.run();
        const undelivered = finishedRunning.all().map((row) => fromRow(row as Record<string, unknown>)!);
        return { requeued, undelivered };
      });
    },
    get: (seq: number) => fromRow(bySeq.get(seq) as Record<string, unknown> | undefined),
    body: (seq: number): Buffer => Buffer.from((body.get(seq) as { body: Uint8Array }).body),
    findByDeliveryId: (deliveryId: string) => fromRow(byDeliveryId.get(deliveryId) as Record<string, unknown> | undefined),
    recent(options: { route?: string; limit?: number } = {}): DeliveryRecord[] {
      const limit = options.limit ?? 20;
      const rows = options.route ? recentForRoute.all(options.route, limit) : recent.all(limit);
      return rows.map((row) => fromRow(row as Record<string, unknown>)!);
    },
    counts(): Record<DeliveryState, number> {
      const out: Record<DeliveryState, number> = { queued: 0, running: 0, delivered: 0, silent: 0, failed: 0, delivery_failed: 0 };
      for (const row of counts.all() as Array<{ state: DeliveryState; n: number }>) out[row.state] = Number(row.n);
      return out;
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;

function jsonObjectText(value: object): string {
  for (const key in value) if (Object.hasOwn(value, key)) return JSON.stringify(value);
  return '{}';
}
