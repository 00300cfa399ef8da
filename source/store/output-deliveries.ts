import type { AttemptRecord } from '../delivery/attempts.js';
import type { DeliverExtra, DeliverySubject } from '../delivery/types.js';
import type { Store } from './database.js';
import { escapeLike } from './sql-text.js';
import type { HeldDelivery } from './webhook-deliveries.js';

/** `uncertain`: a crash came while it was being sent to a target that must not get it twice; the operator decides (deliveries retry). */
export type OutputDeliveryStatus = 'sending' | 'delivered' | 'failed' | 'uncertain';

export interface OutputDelivery {
  id: string;
  target: string;
  extra: DeliverExtra;
  subject: DeliverySubject;
  output: string;
  runFailed: boolean;
  status: OutputDeliveryStatus;
  chunksTotal: number;
  chunksSent: number;
  detail: string | null;
  error: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  attempts: AttemptRecord[];
}

const columns = `id, target, extra, subject, output, run_failed AS runFailed, status, chunks_total AS chunksTotal, chunks_sent AS chunksSent,
  detail, error, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`;

/** Every output sent anywhere, with each attempt: `switchboard deliveries` and the console read it. Writes share the store's group commit. */
/** A send's outcome as recorded: `settle`, or `create` for a record written once (repeatable targets). */
export interface SettledState {
  status: OutputDeliveryStatus;
  chunksTotal: number;
  chunksSent: number;
  detail?: string;
  error?: string;
  atMs: number;
  /** A record written once: the one attempt of its send, written with it. */
  attempt?: AttemptRecord;
}

/**
 * A send of a webhook delivery made before a crash (see `earlierSendFor`): `sending` is one still
 * on its way from another node, met by the node that took over that node's work (cluster mode).
 */
export interface EarlierSend {
  id: string;
  status: 'sending' | 'uncertain' | 'delivered';
}

/** \`held\`: the webhook delivery claim the send belongs to (the PostgreSQL store fences on it; not stored). */
export type NewOutputDelivery = Pick<OutputDelivery, 'id' | 'target' | 'extra' | 'subject' | 'output' | 'runFailed' | 'createdAtMs'> & { held?: HeldDelivery };

export function createOutputDeliveryStore(store: Store) {
  const insert = store.db.prepare(`INSERT INTO output_deliveries (id, target, extra, subject, output, run_failed, status, chunks_total, chunks_sent, detail, error, created_at_ms, updated_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = store.db.prepare('UPDATE output_deliveries SET status = ?, chunks_total = ?, chunks_sent = ?, detail = ?, error = ?, updated_at_ms = ? WHERE id = ?');
  const claimForRetry = store.db.prepare("UPDATE output_deliveries SET status = 'sending', updated_at_ms = ? WHERE id = ? AND status IN ('failed', 'uncertain')");
  const insertAttempt = store.db.prepare(`INSERT INTO output_delivery_attempts (delivery_id, seq, chunk, attempt, at_ms, ok, status, error)
    VALUES (?, (SELECT COUNT(*) FROM output_delivery_attempts WHERE delivery_id = ?), ?, ?, ?, ?, ?, ?)`);
  const firstAttempt = store.db.prepare('INSERT INTO output_delivery_attempts (delivery_id, seq, chunk, attempt, at_ms, ok, status, error) VALUES (?, 0, ?, ?, ?, ?, ?, ?)');
  const attempts = store.db.prepare('SELECT chunk, attempt, at_ms AS atMs, ok, status, error FROM output_delivery_attempts WHERE delivery_id = ? ORDER BY seq');
  const byId = store.db.prepare(`SELECT ${columns} FROM output_deliveries WHERE id = ?`);
  const byPrefix = store.db.prepare(`SELECT ${columns} FROM output_deliveries WHERE id LIKE ? || '%' ESCAPE '\\' LIMIT 2`);
  const failedCount = store.db.prepare("SELECT COUNT(*) AS n FROM output_deliveries WHERE status = 'failed'");
  const sending = store.db.prepare(`SELECT id, target, subject FROM output_deliveries WHERE status = 'sending'`);
  const earlierSend = store.db.prepare(`SELECT id, status FROM output_deliveries WHERE status IN ('sending', 'uncertain', 'delivered') AND json_extract(subject, '$.kind') = 'webhook'
    AND json_extract(subject, '$.route') = $route AND json_extract(subject, '$.deliveryId') = $deliveryId
    AND (json_extract(subject, '$.seq') = $seq OR ((json_extract(subject, '$.seq') IS NULL OR $seq IS NULL) AND created_at_ms >= $since))
    ORDER BY created_at_ms DESC, rowid DESC LIMIT 1`);
  const recent = store.db.prepare(`SELECT ${columns} FROM output_deliveries WHERE (? = 0 OR status IN ('failed', 'uncertain')) ORDER BY created_at_ms DESC, rowid DESC LIMIT ?`);

  const keep = (write: () => void) => void store.keep(write).catch(() => {});
  const hydrate = (row: Record<string, unknown> | undefined): OutputDelivery | undefined => {
    if (!row) return undefined;
    return {
      ...(row as unknown as OutputDelivery),
      extra: JSON.parse(row.extra as string),
      subject: JSON.parse(row.subject as string),
      runFailed: row.runFailed === 1,
      attempts: (attempts.all(row.id as string) as Array<Record<string, unknown>>).map((a) => ({ ...(a as unknown as AttemptRecord), ok: a.ok === 1 })),
    };
  };

  return {
    /**
     * `sending`, or already `settled` (a record written once). Kept writes (store.keep): a lock held
     * elsewhere or a full disk delays the record, never loses it. Settles once committed.
     */
    create(record: NewOutputDelivery, settled?: SettledState): Promise<void> {
      return store.keep(() => {
        insert.run(record.id, record.target, JSON.stringify(record.extra), JSON.stringify(record.subject), record.output, record.runFailed ? 1 : 0,
          settled?.status ?? 'sending', settled?.chunksTotal ?? 0, settled?.chunksSent ?? 0, settled?.detail ?? null, settled?.error ?? null, record.createdAtMs, settled?.atMs ?? record.createdAtMs);
        const attempt = settled?.attempt;
        if (attempt) firstAttempt.run(record.id, attempt.chunk, attempt.attempt, attempt.atMs, attempt.ok ? 1 : 0, attempt.status, attempt.error);
      });
    },
    attempt(id: string, attempt: AttemptRecord): void {
      keep(() => insertAttempt.run(id, id, attempt.chunk, attempt.attempt, attempt.atMs, attempt.ok ? 1 : 0, attempt.status, attempt.error));
    },
    /**
     * Takes a failed or uncertain record for a retry: `sending` again, committed before the send, so
     * two retries at once send once (the other is refused) and a crash mid-retry leaves it in doubt.
     * False when it is not failed or uncertain now.
     */
    async claimRetry(id: string, atMs: number): Promise<boolean> {
      const claimed = store.write(() => claimForRetry.run(atMs, id)).changes === 1;
      if (claimed) await store.committed();
      return claimed;
    },
    settle(id: string, state: SettledState): void {
      keep(() => update.run(state.status, state.chunksTotal, state.chunksSent, state.detail ?? null, state.error ?? null, state.atMs, id));
    },
    /**
     * At start: what a previous process left `sending` (it crashed mid-send). Targets that must not
     * get a message twice (`repeatable` says no) become `uncertain`; the others `failed`, to be sent again.
     */
    recoverInterrupted(repeatable: (target: string) => boolean, atMs: number): { uncertain: number; failed: number } {
      let uncertain = 0;
      let failed = 0;
      for (const row of sending.all() as Array<{ id: string; target: string }>) {
        if (repeatable(row.target)) {
          failed += 1;
          update.run('failed', 0, 0, null, 'interrupted by a stop of the gateway; sent again where its run is delivered anew', atMs, row.id);
        } else {
          uncertain += 1;
          update.run('uncertain', 0, 0, null, 'the gateway stopped while this was being sent: it may or may not have arrived; switchboard deliveries retry <id> sends it again', atMs, row.id);
        }
      }
      return { uncertain, failed };
    },
    /**
     * The latest send of a webhook delivery that arrived (`delivered`), may have (`uncertain`, a
     * crash during the send) or is on its way from another node (`sending`): a delivery recovered
     * after a crash or a takeover must not be sent again. With the delivery row's id (`seq`), the
     * sends recorded with it; records without one (written before it was kept) count when made
     * since `sinceMs`, when its run started (an id accepted again later is another delivery).
     */
    earlierSendFor: (route: string, deliveryId: string, sinceMs: number, seq?: number): EarlierSend | undefined =>
      earlierSend.get({ route, deliveryId, since: sinceMs, seq: seq ?? null }) as EarlierSend | undefined,
    countFailed: () => (failedCount.get() as { n: number }).n,
    get: (id: string) => hydrate(byId.get(id) as Record<string, unknown> | undefined),
    find(idOrPrefix: string): OutputDelivery | 'ambiguous' | undefined {
      const rows = byPrefix.all(escapeLike(idOrPrefix)) as Array<Record<string, unknown>>;
      const exact = rows.find((row) => row.id === idOrPrefix);
      if (exact) return hydrate(exact);
      return rows.length > 1 ? 'ambiguous' : hydrate(rows[0]);
    },
    recent: (options: { failedOnly?: boolean; limit?: number } = {}) =>
      (recent.all(options.failedOnly ? 1 : 0, options.limit ?? 50) as Array<Record<string, unknown>>).map((row) => hydrate(row)!),
  };
}

export type OutputDeliveryStore = ReturnType<typeof createOutputDeliveryStore>;
