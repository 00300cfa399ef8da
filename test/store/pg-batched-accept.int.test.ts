import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { createPgDeliveryStore } from '../../source/store/pg/webhook-deliveries.js';
import type { NewDelivery } from '../../source/store/webhook-deliveries.js';
import { usePostgres } from '../helpers/cluster.js';
import { waitFor } from '../helpers/scheduler.js';

/**
 * The batched accept on PostgreSQL (migration 11, source/store/pg/batch.ts): accepts that arrive
 * together are one call on the intake's connections, with one answer per request, exactly once
 * across nodes, and no deadlock between two nodes' batches over the same delivery ids.
 */
const postgres = usePostgres();

const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

const WINDOW = 60_000;
const delivery = (deliveryId: string, receivedAtMs = 1_000): NewDelivery => ({
  route: 'gh', deliveryId, event: 'pull_request', headers: { 'x-github-event': 'pull_request' }, body: Buffer.from(`{"id":"${deliveryId}"}`),
  prompt: `Review ${deliveryId}`, skills: ['review'], target: 'log', targetExtra: { chat: 'ops' }, receivedAtMs,
});

/** Two nodes (a pool each) on one new database; each counts the intake calls its accepts make. */
async function twoNodes() {
  const url = await postgres().freshDatabase();
  const opened = await Promise.all([openPgStore(url), openPgStore(url)]);
  stores.push(...opened);
  const calls: number[] = [0, 0];
  const nodes = opened.map((store, index) => createPgDeliveryStore({ ...store, intakeQuery: (sql, values) => {
    calls[index] = (calls[index] ?? 0) + 1;
    return store.intakeQuery(sql, values);
  } }, `node-${index}`));
  return { nodes, calls, db: opened[0]! };
}

describe('the batched accept on PostgreSQL', () => {
  it('answers each of many concurrent accepts on two nodes, distinct and duplicate ids, in few calls: one row and one 202 per id', async () => {
    const { nodes, calls, db } = await twoNodes();
    const distinct = Array.from({ length: 120 }, (_, index) => `d-${index}`);
    const repeated = Array.from({ length: 20 }, (_, index) => `r-${index}`);
    // Each distinct id once, on alternate nodes; each repeated id three times on each node.
    const asked = [...distinct.map((id, index) => ({ id, node: index % 2 })), ...repeated.flatMap((id) => [0, 1, 0, 1, 0, 1].map((node) => ({ id, node })))];
    const outcomes = await Promise.all(asked.map(({ id, node }) => nodes[node]!.accept(delivery(id), WINDOW)));

    const acceptedIds = asked.filter((_, index) => outcomes[index]!.kind === 'accepted').map(({ id }) => id);
    expect(acceptedIds.sort()).toEqual([...distinct, ...repeated].sort());
    expect(outcomes.filter((outcome) => outcome.kind === 'duplicate')).toHaveLength(repeated.length * 5);
    const { rows } = await db.query<{ id: number; delivery_id: string }>('SELECT id, delivery_id FROM webhook_deliveries ORDER BY id');
    expect(rows.map((row) => row.delivery_id).sort()).toEqual([...distinct, ...repeated].sort());
    // Each accepted answer is its own row's id.
    const seqOf = new Map(rows.map((row) => [row.delivery_id, row.id]));
    asked.forEach(({ id }, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'accepted') expect(outcome.seq).toBe(seqOf.get(id));
    });
    // Asked in one turn: a handful of calls per node, not one per accept.
    expect(calls[0]! + calls[1]!).toBeLessThanOrEqual(8);
    // Every field kept, as the single accept keeps it.
    const [row] = (await db.query<{ headers: unknown; body: Buffer; skills: unknown; target_extra: unknown; state: string }>(
      `SELECT headers, body, skills, target_extra, state FROM webhook_deliveries WHERE delivery_id = 'd-7'`)).rows;
    expect(row).toEqual({ headers: { 'x-github-event': 'pull_request' }, body: Buffer.from('{"id":"d-7"}'), skills: ['review'], target_extra: { chat: 'ops' }, state: 'queued' });
  });

  it('accepts an id again after the window, and an id twice in one batch once', async () => {
    const { nodes: [node] } = await twoNodes();
    const [first, again] = await Promise.all([node!.accept(delivery('w-1'), WINDOW), node!.accept(delivery('w-1'), WINDOW)]);
    expect([first!.kind, again!.kind]).toEqual(['accepted', 'duplicate']);
    expect((await node!.accept(delivery('w-1', 999 + WINDOW), WINDOW)).kind).toBe('duplicate'); // 1 ms before the window ends
    expect((await node!.accept(delivery('w-1', 1_000 + WINDOW), WINDOW)).kind).toBe('accepted');
    // Without deduplication (a generated id) every accept is a row.
    const undeduplicated = await Promise.all([node!.accept(delivery('g-1'), undefined), node!.accept(delivery('g-1'), undefined)]);
    expect(undeduplicated.map((outcome) => outcome.kind)).toEqual(['accepted', 'accepted']);
  });

  it('finds a duplicate by its delivery id, not among every row of its route, with plans made on an empty table', async () => {
    const url = await postgres().freshDatabase();
    const store = await openPgStore(url);
    const node = createPgDeliveryStore(store, 'node-0');
    for (let index = 0; index < 30; index += 1) await node.accept(delivery(`p-${index}`), WINDOW); // one at a time: the plans are made while the table is nearly empty
    await store.close(); // a backend that ends reports its index scans
    const stats = await openPgStore(url, []);
    stores.push(stats);
    const scans = async () => Object.fromEntries((await stats.query<{ name: string; scans: number }>(
      `SELECT indexrelname AS name, idx_scan::int AS scans FROM pg_stat_user_indexes WHERE relname = 'webhook_deliveries'`)).rows.map((row) => [row.name, row.scans]));
    const reported = await waitFor(async () => {
      const seen = await scans();
      return seen.webhook_deliveries_delivery! + seen.webhook_deliveries_route! >= 30 && seen;
    }, 10_000, 'the index scans to be reported');
    expect(reported).toMatchObject({ webhook_deliveries_route: 0 });
  });

  it('never deadlocks when two nodes batch the same ids in opposite orders', async () => {
    const { nodes, db } = await twoNodes();
    for (let round = 0; round < 5; round += 1) {
      const ids = Array.from({ length: 50 }, (_, index) => `x-${round}-${index}`);
      // One batch per node (asked in one turn), holding every id's lock until its commit.
      const outcomes = await Promise.all([
        Promise.all(ids.map((id) => nodes[0]!.accept(delivery(id), WINDOW))),
        Promise.all([...ids].reverse().map((id) => nodes[1]!.accept(delivery(id), WINDOW))),
      ]);
      expect(outcomes.flat().filter((outcome) => outcome.kind === 'accepted'), `round ${round}`).toHaveLength(50);
    }
    expect((await db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_deliveries')).rows[0]!.n).toBe(250);
  });
});
