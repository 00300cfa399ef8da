import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunResult } from '../../source/agent/types.js';
import type { DeliveryBackend } from '../../source/store/async-domains.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { createRunQueue } from '../../source/webhooks/run-queue.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * An arrival claimed in its own accept on PostgreSQL (migration 12, the run queue's `reserve`): the
 * claim's statement and commit saved while a slot is free and nothing is queued.
 */
const postgres = usePostgres();
const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

const row = (deliveryId: string) => ({ route: 'gh', deliveryId, event: 'push', headers: {}, body: Buffer.from('{}'), prompt: `review ${deliveryId}`, skills: [], target: 'log', targetExtra: {}, receivedAtMs: Date.now() });

describe('an arrival claimed in its accept (PostgreSQL)', () => {
  it('goes in running, held by this node, and runs without a claim while a slot is free and nothing is queued; otherwise it is queued', async () => {
    const store = await openPgStore(await postgres().freshDatabase());
    stores.push(store);
    const backend = pgBackends(store, Date.now, 'node-a').deliveries;
    let claims = 0;
    const deliveries: DeliveryBackend = { ...backend, claimQueued: (now, limit) => { claims += 1; return backend.claimQueued(now, limit); } };
    // Each run waits until the test lets it end.
    const ran: string[] = [];
    const endRun: Array<() => void> = [];
    const queue = createRunQueue({
      deliveries, deliver: async () => ({ ok: true, detail: 'written to gateway.log' }), maxConcurrentRuns: 1, logger: pino({ level: 'silent' }), now: Date.now,
      runAgent: async (request): Promise<RunResult> => {
        ran.push(request.origin);
        await new Promise<void>((resolve) => endRun.push(resolve));
        return { runId: `run-${ran.length}`, status: 'ok', output: 'done', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs: 1, finishedAtMs: 2 };
      },
    });
    const stateOf = async (deliveryId: string) => (await store.query('SELECT state, node_id AS node, started_at_ms AS "startedAtMs" FROM webhook_deliveries WHERE delivery_id = $1', [deliveryId])).rows[0];
    await queue.start();
    // Once the start's claim has found the queue empty, a slot may be reserved (a failed try reserves nothing).
    let slot: { startedAtMs: number } | undefined;
    await vi.waitFor(() => { slot = queue.reserve(); expect(slot).toBeDefined(); });
    expect(claims).toBe(1);
    const first = await deliveries.acceptClaimed!(row('d-1'), 60_000, slot!.startedAtMs);
    expect(first).toMatchObject({ kind: 'accepted', record: { deliveryId: 'd-1', state: 'running', node: 'node-a', startedAtMs: slot!.startedAtMs } });
    queue.settleReserved(first.kind === 'accepted' ? first.record : undefined);
    expect(await stateOf('d-1')).toEqual({ state: 'running', node: 'node-a', startedAtMs: slot!.startedAtMs });
    await vi.waitFor(() => expect(ran).toEqual(['webhook:gh:d-1']));
    expect(claims).toBe(1);

    // The one slot is taken: the next arrival is accepted queued, and claimed when the run ends.
    expect(queue.reserve()).toBeUndefined();
    await deliveries.accept(row('d-2'), 60_000);
    queue.notify();
    expect((await stateOf('d-2'))!.state).toBe('queued');
    endRun.shift()!();
    await vi.waitFor(() => expect(ran).toEqual(['webhook:gh:d-1', 'webhook:gh:d-2']));
    expect(claims).toBe(2);
    await vi.waitFor(async () => expect((await stateOf('d-1'))!.state).toBe('delivered')); // the claim in the accept holds the row as a claim would
    endRun.shift()!();
    await vi.waitFor(async () => expect((await stateOf('d-2'))!.state).toBe('delivered'));

    // A duplicate frees its slot again; claims: the one that found d-2's queue empty after it ended may or may not have come.
    await vi.waitFor(() => { slot = queue.reserve(); expect(slot).toBeDefined(); });
    const again = await deliveries.acceptClaimed!(row('d-1'), 60_000, Date.now());
    expect(again).toEqual({ kind: 'duplicate' });
    queue.settleReserved(undefined);
    expect(queue.reserve()).toBeDefined();
    queue.settleReserved(undefined);
    await queue.stop();

    // Deliveries queued in the store (another node's backlog, say): the arrival queues behind them, unclaimed.
    await deliveries.accept(row('d-3'), 60_000);
    const behind = await deliveries.acceptClaimed!(row('d-4'), 60_000, Date.now());
    expect(behind).toEqual({ kind: 'accepted', seq: expect.any(Number) });
    expect(await stateOf('d-4')).toEqual({ state: 'queued', node: null, startedAtMs: null });
  });
});

describe('an accept that claimed, whose answer was lost', () => {
  it('has its row queued again if it went in (the sender\'s retry is a duplicate; nothing else would run it before a restart)', async () => {
    const store = await openPgStore(await postgres().freshDatabase());
    stores.push(store);
    // The accept commits, then its connection drops before the answer arrives.
    const lossy: PgStore = { ...store, intakeQuery: async (sql, values) => { await store.intakeQuery(sql, values); throw new Error('Connection terminated unexpectedly'); } };
    const deliveries = pgBackends(lossy, Date.now, 'node-a').deliveries;
    await expect(deliveries.acceptClaimed!(row('d-1'), 60_000, Date.now())).rejects.toThrow();
    await vi.waitFor(async () => expect((await store.query('SELECT state, started_at_ms AS "startedAtMs" FROM webhook_deliveries')).rows).toEqual([{ state: 'queued', startedAtMs: null }]));
    expect(await pgBackends(store, Date.now, 'node-a').deliveries.accept(row('d-1'), 60_000)).toEqual({ kind: 'duplicate' });
  });
});

describe('the accept of the version before (migration 11), during an upgrade', () => {
  it('still accepts and deduplicates, queued, through the new function', async () => {
    const store = await openPgStore(await postgres().freshDatabase());
    stores.push(store);
    const call = (deliveryId: string) => store.query<{ seqs: Array<string | null> }>('SELECT webhook_accept_many($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS seqs',
      [['gh'], [deliveryId], ['push'], ['{}'], [Buffer.from('{}')], ['p'], ['[]'], ['log'], ['{}'], [null], [Date.now()], [60_000]]);
    const [first] = (await call('d-1')).rows[0]!.seqs;
    expect(Number(first)).toBeGreaterThan(0);
    expect((await call('d-1')).rows[0]!.seqs).toEqual([null]);
    expect((await store.query('SELECT state, node_id AS node FROM webhook_deliveries')).rows).toEqual([{ state: 'queued', node: null }]);
  });
});
