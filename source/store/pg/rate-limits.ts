import type { RateLimitBackend } from '../async-domains.js';
import { createBatcher } from './batch.js';
import type { PgStore } from './pg-store.js';

/** The webhook rate window (source/webhooks/rate-limit.ts RATE_WINDOW_MS): one minute. */
const WINDOW_MS = 60_000;

/**
 * Per-route rate limits shared by every node on one PostgreSQL: a sliding 60 s window of admitted
 * requests (`webhook_rate_admits`, migration 7), checked and counted in one call under the route's
 * advisory lock. The checks of one route that arrive together are one call of
 * `webhook_rate_admit_many` (migration 11), one at a time per route: the route's lock serialises
 * them in the database anyway. Same answers as the in-memory limiter: refused requests do not
 * count, and the refusal says when the window has room again.
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
  const admit = (route: string, limit: number) => async (requests: unknown[]): Promise<Array<number | null>> => {
    const atMs = now();
    const [, { rows: [row] }] = await Promise.all([
      sweep(atMs),
      store.intakeQuery<{ waits: Array<string | null> }>('SELECT webhook_rate_admit_many($1, $2, $3, $4, $5) AS waits', [route, atMs, WINDOW_MS, limit, requests.length]),
    ]);
    return row!.waits.map((wait) => (wait === null ? null : Number(wait))); // BIGINT[] comes back as text
  };
  const batchers = new Map<string, (request: unknown) => Promise<number | null>>();
  return {
    async check(route, limit) {
      const key = `${route}\n${limit}`;
      let batcher = batchers.get(key);
      if (!batcher) batchers.set(key, (batcher = createBatcher(admit(route, limit), { maxInFlight: 1, maxBatch: 1000 })));
      const wait = await batcher(undefined);
      return wait === null ? { ok: true } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    },
  };
}
