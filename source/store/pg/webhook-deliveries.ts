import type { DeliveryBackend } from '../async-domains.js';
import { FINISHED_RUN_OF_DELIVERY, type DeliveryRecord, type DeliveryState, type NewDelivery } from '../webhook-deliveries.js';
import { createBatcher } from './batch.js';
import { asStoreFault, lockKey, refusedByServer, type PgStore } from './pg-store.js';

const columns = `id AS seq, route, delivery_id AS "deliveryId", event, headers, prompt, skills, target, target_extra AS "targetExtra", state,
  replay_of AS "replayOf", run_id AS "runId", run_status AS "runStatus", output, error, delivery_detail AS "deliveryDetail",
  received_at_ms AS "receivedAtMs", started_at_ms AS "startedAtMs", finished_at_ms AS "finishedAtMs", node_id AS "node"`;

const insertSql = `INSERT INTO webhook_deliveries (route, delivery_id, event, headers, body, prompt, skills, target, target_extra, state, replay_of, received_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', $10, $11) RETURNING id`;

const values = (row: NewDelivery) => [row.route, row.deliveryId, row.event, JSON.stringify(row.headers), Buffer.from(row.body), row.prompt,
  JSON.stringify(row.skills), row.target, JSON.stringify(row.targetExtra), row.replayOf ?? null, row.receivedAtMs];

/** The row is still held by one claim: node \`node\`'s, made at \`startedAt\` (both SQL parameters). */
export const HELD_BY = (node: string, startedAt: string) => `node_id = ${node} AND state = 'running' AND started_at_ms IS NOT DISTINCT FROM ${startedAt}`;

/** Accepts on their way at once (each batch one round trip and one commit), and the most rows per batch. */
const ACCEPTS_IN_FLIGHT = 2;
/** How often the requeue of an accept-claim whose answer was lost is tried again. */
const LOST_CLAIM_RETRY_MS = 5_000;
const MAX_ACCEPT_BATCH = 64;

interface AcceptEntry {
  row: NewDelivery;
  dedupWindowMs: number | undefined;
  /** Claimed for this node in the accept, at this time (run-queue.ts `reserve`); undefined: queued. */
  claimAtMs: number | undefined;
}

/** An accept's answer: the row's id (null: a duplicate), and whether it went in claimed for this node. */
interface AcceptAnswer { seq: number | null; claimed: boolean }

/** The answers of `webhook_accept_claim_many` (migration 12), one per entry in order. */
function acceptMany(store: PgStore, nodeId: string, entries: AcceptEntry[]): Promise<AcceptAnswer[]> {
  const fields = entries.map((entry) => values(entry.row));
  return store.intakeQuery<AcceptAnswer>('SELECT seq, claimed FROM webhook_accept_claim_many($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) WITH ORDINALITY ORDER BY ordinality',
    [...Array.from({ length: 11 }, (_, index) => fields.map((field) => field[index])), entries.map((entry) => entry.dedupWindowMs ?? null),
      nodeId, entries.map((entry) => entry.claimAtMs ?? null)])
    .then(({ rows }) => rows);
}

/** The row an accept that claimed leaves, as a claim would have read it back. */
function claimedRecord(row: NewDelivery, seq: number, startedAtMs: number, nodeId: string): DeliveryRecord {
  return {
    seq, route: row.route, deliveryId: row.deliveryId, event: row.event, headers: row.headers, prompt: row.prompt, skills: row.skills, target: row.target,
    targetExtra: row.targetExtra, state: 'running', replayOf: row.replayOf ?? null, runId: null, runStatus: null, output: null, error: null,
    deliveryDetail: null, receivedAtMs: row.receivedAtMs, startedAtMs, finishedAtMs: null, node: nodeId,
  };
}

/** Accepted webhook deliveries on PostgreSQL: the same operations and answers as the SQLite domain. */
export function createPgDeliveryStore(store: PgStore, nodeId: string): DeliveryBackend {
  const acceptOne = createBatcher((entries: AcceptEntry[]) => acceptMany(store, nodeId, entries), { maxInFlight: ACCEPTS_IN_FLIGHT, maxBatch: MAX_ACCEPT_BATCH });
  /**
   * An accept that claimed, whose answer was lost (not refused): it may have committed, leaving its
   * row running for this node, which the sender's retry finds a duplicate and nothing would run
   * before a restart or a takeover. If it is there, it is queued again (the queue's 5 s sweep takes
   * it); tried until it is answered or the store closes.
   */
  const requeueLostClaim = ({ row, claimAtMs }: AcceptEntry) => {
    const attempt = () => store.query(`UPDATE webhook_deliveries SET state = 'queued', started_at_ms = NULL
      WHERE route = $1 AND delivery_id = $2 AND run_status IS NULL AND ${HELD_BY('$3', '$4')}`, [row.route, row.deliveryId, nodeId, claimAtMs])
      .catch(() => { if (!store.pool.ending) setTimeout(attempt, LOST_CLAIM_RETRY_MS).unref(); });
    void attempt();
  };
  const batchedAccept = (entry: AcceptEntry) => acceptOne(entry).catch((error: unknown) => {
    if (entry.claimAtMs !== undefined && !refusedByServer(error)) requeueLostClaim(entry);
    throw asStoreFault(error);
  });
  const one = async (sql: string, params: unknown[]) => (await store.query<DeliveryRecord & Record<string, unknown>>(sql, params)).rows[0];
  const insert = async (row: NewDelivery, query: (sql: string, params: unknown[]) => Promise<{ rows: Array<{ id: number }> }> = (sql, params) => store.query(sql, params)) =>
    (await query(insertSql, values(row))).rows[0]!.id;
  return {
    // One delivery id sent to every node at once: the check and the insert are one step under a lock
    // on (route, delivery id). Accepts that arrive together share one call and one commit (migration
    // 11); each settles once its batch is committed.
    async accept(row, dedupWindowMs) {
      const { seq } = await batchedAccept({ row, dedupWindowMs, claimAtMs: undefined });
      return seq === null ? { kind: 'duplicate' } : { kind: 'accepted', seq };
    },
    // The accept that claims for this node in the same statement when nothing is queued (migration 12).
    async acceptClaimed(row, dedupWindowMs, startedAtMs) {
      const { seq, claimed } = await batchedAccept({ row, dedupWindowMs, claimAtMs: startedAtMs });
      if (seq === null) return { kind: 'duplicate' };
      return claimed ? { kind: 'accepted', seq, record: claimedRecord(row, seq, startedAtMs, nodeId) } : { kind: 'accepted', seq };
    },
    async enqueueReplay(original, now) {
      return store.transaction(async (client) => {
        await lockKey(client, `replay\n${original.deliveryId}`);
        const { rows: [counted] } = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE replay_of = $1', [original.deliveryId]);
        const { rows: [stored] } = await client.query<{ body: Buffer }>('SELECT body FROM webhook_deliveries WHERE id = $1', [original.seq]);
        const seq = await insert({ ...original, deliveryId: `${original.deliveryId}.replay-${counted!.n + 1}`, body: stored!.body, replayOf: original.deliveryId, receivedAtMs: now },
          (sql, params) => client.query(sql, params));
        return (await client.query<DeliveryRecord>(`SELECT ${columns} FROM webhook_deliveries WHERE id = $1`, [seq])).rows[0]!;
      });
    },
    // SKIP LOCKED: nodes claiming at once each take different rows, none waits for another. A claim
    // that cannot reach the store waits quietly for the next try (the run queue's retry).
    async claimQueued(now, limit) {
      const { rows } = await store.carryingQuery<DeliveryRecord>(`UPDATE webhook_deliveries SET state = 'running', started_at_ms = $1, node_id = $2
        WHERE id IN (SELECT id FROM webhook_deliveries WHERE state = 'queued' ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING ${columns}`, [now, nodeId, limit])
        .catch((error: unknown) => { throw asStoreFault(error); });
      return rows.sort((a, b) => a.seq - b.seq); // RETURNING gives rows in no set order
    },
    // A claim writes only while it still holds its row (this node, running, claimed at that time):
    // a node that was silent for 3 heartbeats finds its rows queued again, claimed anew (perhaps by
    // itself) or handed to the node that took over, and must not overwrite that work (docs/cluster.md,
    // "Cost of a false death").
    async recordRun(held, run) {
      await store.carryingQuery(`UPDATE webhook_deliveries SET run_id = $1, run_status = $2, output = $3, error = $4 WHERE id = $5 AND ${HELD_BY('$6', '$7')}`,
        [run.runId, run.status, run.output, run.error ?? null, held.seq, nodeId, held.startedAtMs]);
    },
    async finish(held, state, detail, now, run) {
      const { rowCount } = run
        ? await store.carryingQuery(`UPDATE webhook_deliveries SET state = $1, delivery_detail = $2, finished_at_ms = $3, run_id = $4, run_status = $5, output = $6, error = $7
          WHERE id = $8 AND ${HELD_BY('$9', '$10')}`, [state, detail, now, run.runId, run.status, run.output, run.error ?? null, held.seq, nodeId, held.startedAtMs])
        : await store.carryingQuery(`UPDATE webhook_deliveries SET state = $1, delivery_detail = $2, finished_at_ms = $3 WHERE id = $4 AND ${HELD_BY('$5', '$6')}`,
          [state, detail, now, held.seq, nodeId, held.startedAtMs]);
      return rowCount === 1;
    },
    // Not fenced by a claim: the delivery is finished, and a retry may be made on any node.
    redelivered: async (seq, detail) =>
      ((await store.query(`UPDATE webhook_deliveries SET state = 'delivered', delivery_detail = $1 WHERE id = $2 AND state = 'delivery_failed'`, [detail, seq])).rowCount ?? 0) > 0,
    async requeue(held) {
      await store.carryingQuery(`UPDATE webhook_deliveries SET state = 'queued', started_at_ms = NULL WHERE id = $1 AND ${HELD_BY('$2', '$3')}`, [held.seq, nodeId, held.startedAtMs]);
    },
    // The running rows this node held when it stopped; another node's are its own to recover
    // (rows of a node that never comes back: docs/cluster.md).
    recover: () => store.transaction(async (client) => {
      await client.query(`UPDATE webhook_deliveries SET run_id = r.id, run_status = r.status, output = r.output, error = r.error
        FROM runs AS r WHERE ${FINISHED_RUN_OF_DELIVERY('webhook_deliveries')} AND webhook_deliveries.node_id = $1`, [nodeId]);
      const requeued = await client.query(`UPDATE webhook_deliveries SET state = 'queued', started_at_ms = NULL WHERE state = 'running' AND run_status IS NULL AND node_id = $1`, [nodeId]);
      const { rows } = await client.query<DeliveryRecord>(`SELECT ${columns} FROM webhook_deliveries WHERE state = 'running' AND run_status IS NOT NULL AND node_id = $1 ORDER BY id`, [nodeId]);
      return { requeued: requeued.rowCount ?? 0, undelivered: rows };
    }),
    get: (seq) => one(`SELECT ${columns} FROM webhook_deliveries WHERE id = $1`, [seq]),
    async body(seq) {
      const { rows: [row] } = await store.query<{ body: Buffer }>('SELECT body FROM webhook_deliveries WHERE id = $1', [seq]);
      if (!row) throw new Error(`No webhook delivery ${seq} in the store`);
      return row.body;
    },
    findByDeliveryId: (deliveryId) => one(`SELECT ${columns} FROM webhook_deliveries WHERE delivery_id = $1 ORDER BY id DESC LIMIT 1`, [deliveryId]),
    async recent(options = {}) {
      const limit = options.limit ?? 20;
      const { rows } = options.route
        ? await store.query<DeliveryRecord>(`SELECT ${columns} FROM webhook_deliveries WHERE route = $1 ORDER BY id DESC LIMIT $2`, [options.route, limit])
        : await store.query<DeliveryRecord>(`SELECT ${columns} FROM webhook_deliveries ORDER BY id DESC LIMIT $1`, [limit]);
      return rows;
    },
    async counts() {
      const out: Record<DeliveryState, number> = { queued: 0, running: 0, delivered: 0, silent: 0, failed: 0, delivery_failed: 0 };
      const { rows } = await store.query<{ state: DeliveryState; n: number }>('SELECT state, COUNT(*)::int AS n FROM webhook_deliveries GROUP BY state');
      for (const row of rows) out[row.state] = row.n;
      return out;
    },
  };
}
