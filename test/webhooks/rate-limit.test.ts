import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../source/webhooks/rate-limit.js';

describe('per-route sliding-window rate limit', () => {
  it('admits `limit` requests per 60 s per route and says when to retry', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(() => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.check('a', 3)).toEqual({ ok: true });
      now += 10_000;
    }
    expect(limiter.check('a', 3)).toEqual({ ok: false, retryAfterSeconds: 30 }); // the first expires at +60 s
    expect(limiter.check('b', 3)).toEqual({ ok: true }); // per route, not global
    now += 29_000;
    expect(limiter.check('a', 3)).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(limiter.check('a', 3)).toEqual({ ok: true }); // sliding: the oldest left the window
    expect(limiter.check('a', 3)).toMatchObject({ ok: false });
  });

  it('refused requests do not extend the window', () => {
    let now = 0;
    const limiter = createRateLimiter(() => now);
    expect(limiter.check('a', 1).ok).toBe(true);
    for (let i = 0; i < 50; i++) {
      now += 1_000;
      expect(limiter.check('a', 1).ok).toBe(false);
    }
    now = 60_000;
    expect(limiter.check('a', 1).ok).toBe(true);
  });
});
