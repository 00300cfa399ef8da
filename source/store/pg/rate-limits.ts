import type { RateLimitBackend } from '../async-domains.js';
import { createBatcher } from './batch.js';
import type { PgStore } from './pg-store.js';

/** The webhook rate window (source/webhooks/rate-limit.ts RATE_WINDOW_MS): one minute. */
const WINDOW_MS = 60_000;
/**
 * Slots a node takes ahead on a route whose window has room for 100 times as many (migration 11),
 * and how long it may use them: at a high rate most checks then answer at once, without a round
 * trip; a route near its limit is checked request by request. Unused slots count until they leave
 * the window (the limit can refuse up to 1% early, never admit more).
 */
const RESERVE = 32;
const RESERVE_MS = 1_000;

/**
 * Per-route rate limits shared by every node on one PostgreSQL: a sliding 60 s window of admitted
 * requests (`webhook_rate_admits`, migration 7), checked and counted in one call under the route's
 * advisory lock. The checks of one route that arrive together are one call of
 * `webhook_rate_admit_many` (migration 11), one at a time per route: the route's lock serialises
 * them in the database anyway. Same answers as the in-memory limiter: refused requests do not
 * count, and the refusal says when the window has room again. A route far from its limit answers
 * most checks from slots taken ahead (RESERVE).
 */
export function createPgRateLimiter(store: PgStore, now: () => number = Date.now): RateLimitBackend {
  let sweptAtMs = now();
  /**
   * Each check deletes its own route's old stamps; this removes those of routes no longer called
   * (a removed subscription), once a window per node. SKIP LOCKED: it never waits on a row a check
   * holds, so it cannot deadlock with one.
   */
  const sweep = async (atMs: number): Promise<void> => {
    if (atMs - sweptAtMs < WINDOW_MS) return;
    sweptAtMs = atMs;
    // A failed sweep is tried again a window later: the checks do not depend on it.
    await store.query(`DELETE FROM webhook_rate_admits WHERE ctid IN
      (SELECT ctid FROM webhook_rate_admits WHERE at_ms <= $1 FOR UPDATE SKIP LOCKED)`, [atMs - WINDOW_MS]).catch(() => {});
  };
  /** Per route and limit: the slots taken ahead that are left, and until when they may be used. */
  const reserves = new Map<string, { slots: number; untilMs: number }>();
  const admit = (route: string, limit: number, key: string) => async (requests: unknown[]): Promise<Array<number | null>> => {
    const atMs = now();
    const [, { rows: [row] }] = await Promise.all([
      sweep(atMs),
      store.intakeQuery<{ waits: Array<string | null> }>('SELECT webhook_rate_admit_many($1, $2, $3, $4, $5, $6, $7) AS waits',
        [route, atMs, WINDOW_MS, limit, requests.length, RESERVE, RESERVE_MS]),
    ]);
    const waits = row!.waits.map((wait) => (wait === null ? null : Number(wait))); // BIGINT[] comes back as text
    const reserved = waits.length - requests.length;
    if (reserved > 0) reserves.set(key, { slots: reserved, untilMs: atMs + RESERVE_MS });
    return waits.slice(0, requests.length);
  };
  const batchers = new Map<string, (request: unknown) => Promise<number | null>>();
  return {
    check(route, limit) {
      const key = `${route}\n${limit}`;
      const reserve = reserves.get(key);
      if (reserve && reserve.slots > 0 && now() < reserve.untilMs) {
        reserve.slots -= 1;
        return { ok: true };
      }
      let batcher = batchers.get(key);
      if (!batcher) batchers.set(key, (batcher = createBatcher(admit(route, limit, key), { maxInFlight: 1, maxBatch: 1000 })));
      return batcher(undefined).then((wait) => (wait === null ? { ok: true } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }));
    },
  };
}
