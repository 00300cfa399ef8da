import type { RateLimitBackend } from '../async-domains.js';
import type { PgStore } from './pg-store.js';

/** The webhook rate window (source/webhooks/rate-limit.ts RATE_WINDOW_MS): one minute. */
const WINDOW_MS = 60_000;

/**
 * Per-route rate limits shared by every node on one PostgreSQL: a sliding 60 s window of admitted
 * requests (`webhook_rate_admits`, migration 7), checked and counted in one call of
 * `webhook_rate_admit` under the route's advisory lock. Same answers as the in-memory limiter:
 * refused requests do not count, and the refusal says when the window has room again.
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
  return {
    async check(route, limit) {
      const atMs = now();
      const [, { rows: [row] }] = await Promise.all([
        sweep(atMs),
        store.query<{ wait: number | null }>('SELECT webhook_rate_admit($1, $2, $3, $4) AS wait', [route, atMs, WINDOW_MS, limit]),
      ]);
      const wait = row!.wait;
      return wait === null ? { ok: true } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
    },
  };
}
