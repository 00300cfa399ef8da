import { afterEach, describe, expect, it } from 'vitest';
import { createPgOutputDeliveryStore } from '../../source/store/pg/output-deliveries.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { createPgRunStore } from '../../source/store/pg/runs.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * The lane of rows that need not wait for the disk (PgStore.recordQuery): a run's own rows and the
 * record of a send to a target that costs nothing to repeat. A `sending` row stays durable.
 */
const postgres = usePostgres();

const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

/** A store on a new database whose statements are listed with the lane they took. */
async function listedStore() {
  const store = await openPgStore(await postgres().freshDatabase());
  stores.push(store);
  const lanes: Array<{ lane: 'durable' | 'record'; sql: string }> = [];
  const listed: PgStore = {
    ...store,
    query: (sql, values) => { lanes.push({ lane: 'durable', sql }); return store.query(sql, values); },
    recordQuery: (sql, values) => { lanes.push({ lane: 'record', sql }); return store.recordQuery(sql, values); },
  };
  return { store, listed, lanes };
}

describe('the record lane on PostgreSQL', () => {
  it('commits without waiting for the disk there, and durably everywhere else', async () => {
    const { store } = await listedStore();
    expect((await store.recordQuery<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit).toBe('off');
    expect((await store.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit).toBe('on');
    expect((await store.intakeQuery<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit).toBe('on');
  });

  it('takes a run\'s rows and a settled send\'s record; a send about to happen is written durably', async () => {
    const { listed, lanes } = await listedStore();
    const runs = createPgRunStore(listed, 'node-a');
    await runs.started({ id: 'run-1', origin: 'webhook:gh:d-1', provider: 'dry-run', systemPrompt: 's', prompt: 'p', startedAtMs: 1_000 });
    await runs.toolCall('run-1', 0, { id: 'c-1', name: 'read', args: {}, result: 'ok', isError: false, startedAtMs: 1_100, finishedAtMs: 1_200 });
    await runs.finished({ runId: 'run-1', status: 'ok', output: 'done', steps: 1, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, startedAtMs: 1_000, finishedAtMs: 2_000 });
    expect(lanes.map(({ lane }) => lane)).toEqual(['record', 'record', 'record']);
    expect(await runs.get('run-1')).toMatchObject({ status: 'ok', output: 'done', toolCalls: [{ callId: 'c-1' }] });

    lanes.splice(0);
    const outputs = createPgOutputDeliveryStore(listed, 'node-a');
    const record = { target: 'log', extra: {}, subject: { kind: 'webhook', route: 'gh', deliveryId: 'd-1', event: 'push' }, output: 'done', runFailed: false, createdAtMs: 2_000 } as const;
    await outputs.create({ id: 'out-1', ...record }, { status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: 'written to the log', atMs: 2_001 });
    await outputs.create({ id: 'out-2', ...record, target: 'telegram' });
    expect(lanes.filter(({ sql }) => sql.includes('INSERT INTO output_deliveries')).map(({ lane }) => lane)).toEqual(['record', 'durable']);
  });
});
