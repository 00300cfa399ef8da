import type { AttemptRecord } from '../../delivery/attempts.js';
import type { OutputDeliveryBackend } from '../async-domains.js';
import type { EarlierSend, OutputDelivery } from '../output-deliveries.js';
import { escapeLike } from '../sql-text.js';
import type { PgStore } from './pg-store.js';
import { HELD_BY } from './webhook-deliveries.js';

const columns = `id, target, extra, subject, output, run_failed AS "runFailed", status, chunks_total AS "chunksTotal", chunks_sent AS "chunksSent",
  detail, error, created_at_ms AS "createdAtMs", updated_at_ms AS "updatedAtMs"`;

const insertColumns = 'id, target, extra, subject, output, run_failed, status, chunks_total, chunks_sent, detail, error, created_at_ms, updated_at_ms, node_id';
const insertSql = `INSERT INTO output_deliveries (${insertColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
/** The insert of a webhook's \`sending\` row, made only while node $14's claim (made at $16) holds delivery row $15, which it locks. */
const fencedInsertSql = `WITH held AS (SELECT 1 FROM webhook_deliveries WHERE id = $15 AND ${HELD_BY('$14', '$16')} FOR UPDATE)
  INSERT INTO output_deliveries (${insertColumns}) SELECT $1::text, $2::text, $3::jsonb, $4::jsonb, $5::text, $6::boolean, $7::text, $8::integer, $9::integer,
    $10::text, $11::text, $12::bigint, $13::bigint, $14::text WHERE EXISTS (SELECT 1 FROM held)`;

/** A record written once with the one attempt of its send ($15-$20), in one statement: the attempt needs its row. */
const insertWithAttemptSql = `WITH row AS (${insertSql} RETURNING id)
  INSERT INTO output_delivery_attempts (delivery_id, seq, chunk, attempt, at_ms, ok, status, error)
  SELECT id, 0, $15::integer, $16::integer, $17::bigint, $18::boolean, $19::integer, $20::text FROM row`;

const settleSql = 'UPDATE output_deliveries SET status = $1, chunks_total = $2, chunks_sent = $3, detail = $4, error = $5, updated_at_ms = $6 WHERE id = $7';

/** Every output sent anywhere with each attempt, on PostgreSQL. */
export function createPgOutputDeliveryStore(store: PgStore, nodeId: string): OutputDeliveryBackend {
  /** Rows with their attempts (one query for all of them). */
  const hydrate = async (rows: Array<Omit<OutputDelivery, 'attempts'>>): Promise<OutputDelivery[]> => {
    if (rows.length === 0) return [];
    const { rows: attempts } = await store.query<AttemptRecord & { deliveryId: string }>(`SELECT delivery_id AS "deliveryId", chunk, attempt, at_ms AS "atMs", ok, status, error
      FROM output_delivery_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, seq`, [rows.map((row) => row.id)]);
    return rows.map((row) => ({ ...row, attempts: attempts.filter((attempt) => attempt.deliveryId === row.id).map(({ deliveryId: _deliveryId, ...attempt }) => attempt) }));
  };
  // Reads carry this node's record writes waiting (carried-writes.ts): a send's record shows as soon as the send returns.
  const select = async (where: string, params: unknown[]) => hydrate((await store.carryingQuery<Omit<OutputDelivery, 'attempts'>>(`SELECT ${columns} FROM output_deliveries ${where}`, params)).rows);
  return {
    writesInOrder: true,
    // Written once with its outcome (\`settled\`): the send of a target that costs nothing to repeat
    // (source/delivery/deliver.ts), so its record is a record write (recordWrite: it rides with the
    // webhook's final state, or goes without waiting for the disk). A
    // \`sending\` row must be durable before the send: it is how a crash knows a send may have arrived.
    async create(record, settled) {
      const values = [record.id, record.target, JSON.stringify(record.extra), JSON.stringify(record.subject), record.output, record.runFailed, settled?.status ?? 'sending',
        settled?.chunksTotal ?? 0, settled?.chunksSent ?? 0, settled?.detail ?? null, settled?.error ?? null, record.createdAtMs, settled?.atMs ?? record.createdAtMs, nodeId];
      const attempt = settled?.attempt;
      if (attempt) return void await store.recordWrite(insertWithAttemptSql, [...values, attempt.chunk, attempt.attempt, attempt.atMs, attempt.ok, attempt.status, attempt.error]);
      if (settled) return void await store.recordWrite(insertSql, values);
      if (!record.held) return void await store.query(insertSql, values);
      // The fence of a webhook's send: its row goes in only while this claim still holds the
      // delivery, under a lock on the delivery row that a takeover's requeue or adoption waits for
      // (docs/cluster.md, "Cost of a false death"). Written first, the node that takes over sees the
      // send and does not make it again; taken over first, this node does not send.
      const { rowCount } = await store.carryingQuery(fencedInsertSql, [...values, record.held.seq, record.held.startedAtMs]);
      if (rowCount === 0) {
        const what = record.subject.kind === 'webhook' ? `webhook delivery ${record.subject.route} ${record.subject.deliveryId}` : `webhook delivery ${record.held.seq}`;
        throw new Error(`node ${nodeId} no longer holds ${what}: another node took over its work while this one was silent, so it is not sent from here`);
      }
    },
    // One sender per delivery numbers its attempts, as on SQLite.
    async attempt(id, attempt) {
      await store.query(`INSERT INTO output_delivery_attempts (delivery_id, seq, chunk, attempt, at_ms, ok, status, error)
        VALUES ($1, (SELECT COUNT(*) FROM output_delivery_attempts WHERE delivery_id = $1), $2, $3, $4, $5, $6, $7)`,
      [id, attempt.chunk, attempt.attempt, attempt.atMs, attempt.ok, attempt.status, attempt.error]);
    },
    // `sending` again on this node (its restart recovers it), from failed or uncertain only: two retries at once send once.
    async claimRetry(id, atMs) {
      const { rowCount } = await store.query(`UPDATE output_deliveries SET status = 'sending', node_id = $3, updated_at_ms = $2
        WHERE id = $1 AND status IN ('failed', 'uncertain')`, [id, atMs, nodeId]);
      return rowCount === 1;
    },
    async settle(id, state) {
      await store.query(settleSql, [state.status, state.chunksTotal, state.chunksSent, state.detail ?? null, state.error ?? null, state.atMs, id]);
    },
    // The `sending` rows of this node (a restart); another node's are its own (docs/cluster.md).
    recoverInterrupted: (repeatable, atMs) => store.transaction(async (client) => {
      const { rows } = await client.query<{ id: string; target: string }>(`SELECT id, target FROM output_deliveries WHERE status = 'sending' AND node_id = $1 FOR UPDATE`, [nodeId]);
      let uncertain = 0;
      let failed = 0;
      for (const row of rows) {
        if (repeatable(row.target)) {
          failed += 1;
          await client.query(settleSql, ['failed', 0, 0, null, 'interrupted by a stop of the gateway; sent again where its run is delivered anew', atMs, row.id]);
        } else {
          uncertain += 1;
          await client.query(settleSql, ['uncertain', 0, 0, null, 'the gateway stopped while this was being sent: it may or may not have arrived; switchboard deliveries retry <id> sends it again', atMs, row.id]);
        }
      }
      return { uncertain, failed };
    }),
    earlierSendFor: async (route, deliveryId, sinceMs, seq) => (await store.carryingQuery<EarlierSend>(`SELECT id, status FROM output_deliveries WHERE status IN ('sending', 'uncertain', 'delivered')
      AND subject->>'kind' = 'webhook' AND subject->>'route' = $1 AND subject->>'deliveryId' = $2
      AND (subject->>'seq' = $4::text OR ((subject->>'seq' IS NULL OR $4::text IS NULL) AND created_at_ms >= $3))
      ORDER BY created_at_ms DESC, inserted DESC LIMIT 1`, [route, deliveryId, sinceMs, seq === undefined ? null : String(seq)])).rows[0],
    countFailed: async () => (await store.carryingQuery<{ n: number }>(`SELECT COUNT(*)::int AS n FROM output_deliveries WHERE status = 'failed'`)).rows[0]!.n,
    get: async (id) => (await select('WHERE id = $1', [id]))[0],
    async find(idOrPrefix) {
      const rows = await select(`WHERE id LIKE $1 || '%' ESCAPE '\\' LIMIT 2`, [escapeLike(idOrPrefix)]);
      return rows.find((row) => row.id === idOrPrefix) ?? (rows.length > 1 ? 'ambiguous' : rows[0]);
    },
    recent: (options = {}) => select(`WHERE ($1::boolean IS FALSE OR status IN ('failed', 'uncertain')) ORDER BY created_at_ms DESC, inserted DESC LIMIT $2`,
      [options.failedOnly === true, options.limit ?? 50]),
  };
}
