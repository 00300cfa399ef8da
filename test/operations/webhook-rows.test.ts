import { describe, expect, it } from 'vitest';
import { createWebhookRing, mergeWebhookRows, type WebhookRow } from '../../source/operations/webhook-rows.js';
import type { WebhookCompleted } from '../../source/webhooks/types.js';

/** The ring's rules, written the plain way (an array, newest first, and a scan): what the ring must match. */
type ReferenceRow = WebhookRow & { awaitingRequest?: boolean };

function referenceRing(capacity: number, initial: WebhookRow[]) {
  let rows: ReferenceRow[] = initial.slice(0, capacity);
  const newestRunnable = (route: string, deliveryId: string) => rows.findIndex((row) => row.route === route && row.deliveryId === deliveryId && (row.outcome === 'accepted' || row.outcome === 'replay'));
  const update = (route: string, deliveryId: string, change: Partial<ReferenceRow>) => {
    const index = newestRunnable(route, deliveryId);
    if (index < 0) return false;
    rows[index] = { ...rows[index]!, ...change };
    return true;
  };
  const push = (row: Omit<ReferenceRow, 'key'>) => {
    rows = [{ ...row, key: '' }, ...rows].slice(0, capacity);
  };
  // A run event with no row to update adds one; an accepted request for it then completes that row.
  const pushForRun = (row: Omit<WebhookRow, 'key'>) => push({ ...row, ...(row.outcome === 'accepted' ? { awaitingRequest: true } : {}) });
  return {
    rows: () => rows,
    received: (row: Omit<WebhookRow, 'key'>) => {
      const index = row.outcome === 'accepted' ? newestRunnable(row.route, row.deliveryId) : -1;
      if (index >= 0 && rows[index]!.awaitingRequest) {
        const { awaitingRequest: _done, ...waiting } = rows[index]!;
        rows[index] = { ...waiting, atMs: row.atMs, status: row.status };
      } else {
        push(row);
      }
    },
    runStarted: (route: string, deliveryId: string, atMs: number, replay: boolean) => {
      if (!update(route, deliveryId, { runState: 'running' })) pushForRun({ atMs, route, event: 'e', deliveryId, outcome: replay ? 'replay' : 'accepted', status: 202, runState: 'running' });
    },
    completed: (route: string, deliveryId: string, atMs: number, state: WebhookCompleted['state']) => {
      const change = { runState: state, runStatus: 'ok', delivery: { ok: true as const, detail: 'd' } };
      if (!update(route, deliveryId, change)) pushForRun({ atMs, route, event: 'e', deliveryId, outcome: 'accepted', status: 202, ...change });
    },
  };
}

const withoutKeys = (rows: readonly ReferenceRow[]) => rows.map(({ key: _key, awaitingRequest: _awaiting, ...row }) => row);

describe('the webhook rows ring', () => {
  it('matches the plain rules over a long random run of requests, run starts and ends (with eviction)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const seeded: WebhookRow[] = [{ key: 'h2', atMs: 2, route: 'a', event: 'e', deliveryId: 'd1', outcome: 'accepted', status: 202, runState: 'queued' }, { key: 'h1', atMs: 1, route: 'b', event: 'e', deliveryId: 'd0', outcome: 'unauthorized', status: 401 }];
    const ring = createWebhookRing(20, seeded);
    const reference = referenceRing(20, seeded);
    const outcomes = ['accepted', 'accepted', 'accepted', 'duplicate', 'unauthorized'] as const;
    for (let step = 0; step < 3000; step += 1) {
      const route = ['a', 'b'][random(2)]!;
      const deliveryId = `d${random(40)}`;
      const kind = random(3);
      if (kind === 0) {
        const outcome = outcomes[random(outcomes.length)]!;
        const row = { atMs: step, route, event: 'e', deliveryId, outcome, status: outcome === 'accepted' ? 202 : 401 };
        ring.received({ ...row, reason: undefined } as never);
        reference.received({ ...row, reason: undefined });
      } else if (kind === 1) {
        const replay = random(5) === 0;
        ring.runStarted({ seq: step, route, event: 'e', deliveryId, origin: 'o', replayOf: replay ? 'x' : null, atMs: step } as never);
        reference.runStarted(route, deliveryId, step, replay);
      } else {
        ring.completed({ seq: step, route, event: 'e', deliveryId, state: 'delivered', runId: 'r', runStatus: 'ok', delivery: { ok: true, detail: 'd' }, atMs: step } as never);
        reference.completed(route, deliveryId, step, 'delivered');
      }
      if (step % 97 === 0) expect(withoutKeys(ring.rows())).toEqual(withoutKeys(reference.rows()));
    }
    expect(withoutKeys(ring.rows())).toEqual(withoutKeys(reference.rows()));
    const keys = ring.rows().map((row) => row.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('cluster: a run reported before its request (relayed later from the node that answered it) is one row, with both nodes', () => {
    const ring = createWebhookRing(5);
    ring.runStarted({ seq: 1, route: 'a', event: 'e', deliveryId: 'd', origin: 'o', replayOf: null, atMs: 20, node: 'runner' } as never);
    ring.completed({ seq: 1, route: 'a', event: 'e', deliveryId: 'd', state: 'delivered', runId: 'r', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, atMs: 30, node: 'runner' } as never);
    ring.received({ atMs: 10, route: 'a', event: 'e', deliveryId: 'd', outcome: 'accepted', status: 202, latencyMs: 1, node: 'intake' });
    expect(withoutKeys(ring.rows())).toEqual([{ atMs: 10, route: 'a', event: 'e', deliveryId: 'd', outcome: 'accepted', status: 202, runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, node: 'intake', runNode: 'runner' }]);
    // The same delivery id accepted again later (past the idempotency window) is a row of its own.
    ring.received({ atMs: 40, route: 'a', event: 'e', deliveryId: 'd', outcome: 'accepted', status: 202, latencyMs: 1, node: 'intake' });
    expect(ring.rows()).toHaveLength(2);
  });

  it('hands out the same copy until something changes', () => {
    const ring = createWebhookRing(5);
    const first = ring.rows();
    expect(ring.rows()).toBe(first);
    ring.received({ atMs: 1, route: 'a', event: 'e', deliveryId: 'd', outcome: 'accepted', status: 202, latencyMs: 1 });
    expect(ring.rows()).not.toBe(first);
    expect(ring.rows()).toHaveLength(1);
    // A row that did not change is the same object in the next copy; one that changed is a new one.
    const [older] = ring.rows();
    ring.received({ atMs: 2, route: 'a', event: 'e', deliveryId: 'd2', outcome: 'accepted', status: 202, latencyMs: 1 });
    expect(ring.rows()[1]).toBe(older);
    ring.runStarted({ seq: 1, route: 'a', event: 'e', deliveryId: 'd', origin: 'o', replayOf: null, atMs: 3 });
    expect(ring.rows()[1]).not.toBe(older);
    expect(ring.rows()[1]).toMatchObject({ deliveryId: 'd', runState: 'running', key: older!.key });
  });

  it('cluster: rows another node shared join those here, newest first: a request and its run seen on two nodes make one row', () => {
    const request = (key: string, atMs: number, deliveryId: string, extra: Partial<WebhookRow> = {}): WebhookRow => ({ key, atMs, route: 'gh', event: 'push', deliveryId, outcome: 'accepted', status: 202, ...extra });
    const here = [
      request('a3', 30, 'd-3', { node: 'node-a', runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, runNode: 'node-a' }),
      request('a2', 20, 'd-2', { node: 'node-a', runState: 'queued' }), // answered here, run on node-b
      request('a1', 10, 'd-1', { node: 'node-a', runState: 'running', runNode: 'node-a' }),
      { ...request('a0', 5, 'd-0', { node: 'node-b' }), outcome: 'unauthorized', status: 401, reason: 'bad signature' } satisfies WebhookRow,
    ];
    const shared = [
      request('node-b/b9', 25, 'd-9', { node: 'node-b', runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, runNode: 'node-b' }),
      request('node-b/b2', 21, 'd-2', { runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, runNode: 'node-b' }), // its run, the request not seen there
      request('node-b/b1', 9, 'd-1', { runState: 'queued' }), // an older view of d-1's run
      { ...request('node-b/b0', 5, 'd-0', { node: 'node-b' }), outcome: 'unauthorized', status: 401, reason: 'bad signature' } satisfies WebhookRow,
    ];
    const merged = mergeWebhookRows(here, shared);
    expect(merged.map((row) => row.deliveryId)).toEqual(['d-3', 'd-9', 'd-2', 'd-1', 'd-0']); // the refused request relayed before is one row
    expect(merged[2]).toEqual(request('a2', 20, 'd-2', { node: 'node-a', runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, runNode: 'node-b' }));
    expect(merged[3]).toEqual(here[2]); // the run further on is kept
    // Shared again (a console attached there once more): the same rows, not twice.
    expect(mergeWebhookRows(merged, shared)).toEqual(merged);
    expect(mergeWebhookRows(here, shared, 3).map((row) => row.key)).toEqual(['a3', 'node-b/b9', 'a2']);
    // The ring made of merged rows keeps their keys and finds their deliveries for the events after.
    const ring = createWebhookRing(undefined, merged);
    ring.completed({ seq: 1, route: 'gh', event: 'push', deliveryId: 'd-1', state: 'delivered', runId: null, runStatus: 'ok', delivery: { ok: true, detail: 'log' }, atMs: 40, node: 'node-a' });
    expect(ring.rows().map((row) => [row.key, row.runState])).toEqual([['a3', 'delivered'], ['node-b/b9', 'delivered'], ['a2', 'delivered'], ['a1', 'delivered'], ['a0', undefined]]);
  });
});
