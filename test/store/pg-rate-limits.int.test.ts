import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { createPgRateLimiter } from '../../source/store/pg/rate-limits.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * Webhook rate limits on PostgreSQL (issue #19): one sliding 60 s window per route for every node.
 * Each limiter has its own pool, as each gateway of a cluster does.
 */
const postgres = usePostgres();

const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

/** One limiter per clock (one per node), each on its own pool, all on one new database. */
async function nodes(clocks: Array<() => number>) {
  const url = await postgres().freshDatabase();
  const opened = await Promise.all(clocks.map(() => openPgStore(url)));
  stores.push(...opened);
  return { limiters: opened.map((store, i) => createPgRateLimiter(store, clocks[i])), db: opened[0]! };
}

const rows = async (db: PgStore, route: string) =>
  (await db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_rate_admits WHERE route = $1', [route])).rows[0]!.n;

describe('rate limits shared on PostgreSQL', () => {
  it('three nodes checking one route at once admit the limit between them, not each', async () => {
    const now = 1_000_000;
    const { limiters, db } = await nodes([() => now, () => now, () => now]);
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => limiters[i % 3]!.check('gh', 10)));
    expect(decisions.filter((decision) => decision.ok)).toHaveLength(10);
    expect(decisions.filter((decision) => !decision.ok)).toEqual(Array.from({ length: 20 }, () => ({ ok: false, retryAfterSeconds: 60 })));
    expect(await rows(db, 'gh')).toBe(10); // refused requests are not stored
    expect(await limiters[0]!.check('other', 10)).toEqual({ ok: true }); // per route
  });

  it('slides across nodes, says when to retry, and refused requests do not extend the window', async () => {
    let now = 1_000_000;
    const { limiters: [a, b, c], db } = await nodes([() => now, () => now, () => now]);
    for (const node of [a!, b!, c!]) {
      expect(await node.check('gh', 3)).toEqual({ ok: true });
      now += 10_000;
    }
    expect(await a!.check('gh', 3)).toEqual({ ok: false, retryAfterSeconds: 30 }); // the first expires at +60 s
    now += 29_000;
    expect(await b!.check('gh', 3)).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(await c!.check('gh', 3)).toEqual({ ok: true }); // the oldest left the window
    expect(await a!.check('gh', 3)).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(await rows(db, 'gh')).toBe(3); // the expired stamp was deleted by the check
    // A lowered limit waits for enough stamps to leave, here all three (as in memory).
    expect(await b!.check('gh', 2)).toEqual({ ok: false, retryAfterSeconds: 20 });
    expect(await b!.check('gh', 1)).toEqual({ ok: false, retryAfterSeconds: 60 });
  });

  it('keeps counting right when a node\'s clock lags: its stamp takes the latest time', async () => {
    let now = 1_010_000;
    const { limiters: [ahead, behind] } = await nodes([() => now, () => now - 10_000]);
    expect(await ahead!.check('gh', 2)).toEqual({ ok: true });
    expect(await behind!.check('gh', 2)).toEqual({ ok: true }); // stamped 1_010_000, not 1_000_000
    now = 1_060_000;
    expect(await ahead!.check('gh', 2)).toEqual({ ok: false, retryAfterSeconds: 10 });
    now = 1_070_000;
    expect(await ahead!.check('gh', 2)).toEqual({ ok: true });
    expect(await ahead!.check('gh', 2)).toEqual({ ok: true });
    expect(await behind!.check('gh', 2)).toEqual({ ok: false, retryAfterSeconds: 70 });
  });

  it('deletes the stamps of a route no longer called once a window has passed', async () => {
    let now = 1_000_000;
    const { limiters: [a], db } = await nodes([() => now]);
    expect(await a!.check('removed-subscription', 5)).toEqual({ ok: true });
    now += 30_000;
    expect(await a!.check('gh', 5)).toEqual({ ok: true });
    expect(await rows(db, 'removed-subscription')).toBe(1); // still in its window
    now += 31_000;
    expect(await a!.check('gh', 5)).toEqual({ ok: true });
    expect(await rows(db, 'removed-subscription')).toBe(0);
    expect(await rows(db, 'gh')).toBe(2);
  });

  it('answers most checks of a route far from its limit from slots taken ahead, and never admits past the limit', async () => {
    const now = 1_000_000;
    const url = await postgres().freshDatabase();
    const opened = await Promise.all([0, 1, 2].map(() => openPgStore(url)));
    stores.push(...opened);
    let calls = 0;
    const limiters = opened.map((store) => createPgRateLimiter({ ...store, intakeQuery: (sql, values) => {
      calls += 1;
      return store.intakeQuery(sql, values);
    } }, () => now));
    // Far from the limit: 600 checks, one at a time per node, in a few calls each.
    for (let index = 0; index < 200; index += 1) {
      const decisions = await Promise.all(limiters.map((limiter) => limiter.check('gh', 10_000)));
      expect(decisions).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    }
    expect(calls).toBeLessThanOrEqual(3 * Math.ceil(200 / 32) + 3);
    expect(await rows(opened[0]!, 'gh')).toBeGreaterThanOrEqual(600);
    expect(await rows(opened[0]!, 'gh')).toBeLessThanOrEqual(600 + 3 * 32);

    // Near the limit: 3,400 checks at once on three nodes; at most the limit, at most 32 a node short of it.
    const decisions = await Promise.all(Array.from({ length: 3_400 }, (_, index) => limiters[index % 3]!.check('near', 3_300)));
    const admitted = decisions.filter((decision) => decision.ok).length;
    expect(admitted).toBeLessThanOrEqual(3_300);
    expect(admitted).toBeGreaterThanOrEqual(3_300 - 3 * 32);
    expect(await rows(opened[0]!, 'near')).toBe(3_300); // the window is full: the admitted and any slot left unused
    expect(await limiters[0]!.check('near', 3_300)).toEqual({ ok: false, retryAfterSeconds: 60 });
  });
});
