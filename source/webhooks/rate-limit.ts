export const RATE_WINDOW_MS = 60_000;

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * A sliding 60-second window per route: a request is admitted when fewer than `limit` requests
 * were admitted on that route in the last minute. Refused requests do not count, so a sender that
 * keeps retrying is let in again as soon as the window has room. Memory: at most `limit` stamps per route.
 */
export function createRateLimiter(now: () => number = Date.now) {
  const windows = new Map<string, number[]>();
  return {
    check(route: string, limit: number): RateDecision {
      const at = now();
      let stamps = windows.get(route);
      if (!stamps) windows.set(route, (stamps = []));
      let expired = 0;
      while (expired < stamps.length && stamps[expired]! <= at - RATE_WINDOW_MS) expired++;
      if (expired > 0) stamps.splice(0, expired);
      if (stamps.length >= limit) {
        const oldest = stamps[stamps.length - limit]!;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + RATE_WINDOW_MS - at) / 1000)) };
      }
      stamps.push(at);
      return { ok: true };
    },
    /** Forget a route (removed subscription). */
    forget(route: string): void {
      windows.delete(route);
    },
  };
}

/**
 * What the intake asks per request: this process's window answers at once; a store several nodes
 * share (PostgreSQL, `StoreBackends.rateLimits`) answers with a promise and holds for the cluster.
 */
export interface RateLimiter {
  check(route: string, limit: number): RateDecision | Promise<RateDecision>;
}
