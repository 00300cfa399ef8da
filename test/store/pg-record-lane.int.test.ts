import { afterEach, describe, expect, it } from 'vitest';
import { createPgOutputDeliveryStore } from '../../source/store/pg/output-deliveries.js';
import { CARRY_WAIT_MS, openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { createPgRunStore } from '../../source/store/pg/runs.js';
import { createPgDeliveryStore } from '../../source/store/pg/webhook-deliveries.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * Record writes (PgStore.recordWrite): a run's own rows and the record of a send to a target that
 * costs nothing to repeat. They ride with the node's next claim or final state, in its transaction,
 * or go alone without waiting for the disk; a `sending` row stays durable.
 */
const postgres = usePostgres();

const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

async function freshStore(options: { connections?: number } = {}) {
  const store = await openPgStore(await postgres().freshDatabase(), undefined, options);
  stores.push(store);
  return store;
}

/** A store whose statements are listed with the lane they took. */
async function listedStore() {
  const store = await freshStore();
  const lanes: Array<{ lane: 'durable' | 'record' | 'carrying'; sql: string }> = [];
  const listed: PgStore = {
    ...store,
    query: (sql, values) => { lanes.push({ lane: 'durable', sql }); return store.query(sql, values); },
    recordWrite: (sql, values) => { lanes.push({ lane: 'record', sql }); return store.recordWrite(sql, values); },
    carryingQuery: (sql, values) => { lanes.push({ lane: 'carrying', sql }); return store.carryingQuery(sql, values); },
  };
  return { store, listed, lanes };
}

const webhookRow = (deliveryId: string) => ({ route: 'gh', deliveryId, event: 'push', headers: {}, body: Buffer.from('{}'), prompt: 'p', skills: [], target: 'log', targetExtra: {}, receivedAtMs: 1 });
/** The transaction that wrote a row (xmin): rows written in one statement's transaction share it. */
const writtenBy = async (store: PgStore, table: string, where: string, value: unknown) =>
  (await store.query<{ xmin: string }>(`SELECT xmin::text FROM ${table} WHERE ${where} = $1`, [value])).rows[0]?.xmin;

describe('record writes on PostgreSQL', () => {
  it('take a run\'s rows and a settled send\'s record; a send about to happen is written durably', async () => {
    const { listed, lanes } = await listedStore();
    const runs = createPgRunStore(listed, 'node-a');
    expect(runs.writesInOrder).toBe(true);
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

  it('ride in the transaction of the next claim or final state, in the order they were made, each run by a name prepared once', async () => {
    const store = await freshStore({ connections: 1 }); // one connection: the prepared statements listed below are the batches'
    const runs = createPgRunStore(store, 'node-a');
    const deliveries = createPgDeliveryStore(store, 'node-a');
    await deliveries.accept(webhookRow('d-1'), 60_000);
    // A run's start and end asked for together (the recorder does not wait between them): the end's UPDATE finds the row its start inserted.
    const started = runs.started({ id: 'run-1', origin: 'webhook:gh:d-1', provider: 'dry-run', systemPrompt: 's', prompt: 'p', startedAtMs: 1_000 });
    const finished = runs.finished({ runId: 'run-1', status: 'ok', output: 'done', steps: 1, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, startedAtMs: 1_000, finishedAtMs: 2_000 });
    const [claimed] = await deliveries.claimQueued(3_000, 1);
    await Promise.all([started, finished]);
    const claimTransaction = await writtenBy(store, 'webhook_deliveries', 'id', claimed!.seq);
    expect(await writtenBy(store, 'runs', 'id', 'run-1')).toBe(claimTransaction);
    expect(await runs.get('run-1')).toMatchObject({ status: 'ok', output: 'done' });

    // The final state carries the next ones.
    const outputs = createPgOutputDeliveryStore(store, 'node-a');
    const sent = outputs.create({ id: 'out-1', target: 'log', extra: {}, subject: { kind: 'webhook', route: 'gh', deliveryId: 'd-1', event: 'push' }, output: 'done', runFailed: false, createdAtMs: 3_000 },
      { status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: 'written to gateway.log', atMs: 3_001, attempt: { chunk: 0, attempt: 1, atMs: 3_001, ok: true, status: null, error: null } });
    expect(await deliveries.finish(claimed!, 'delivered', 'written to gateway.log', 3_002)).toBe(true);
    await sent;
    expect(await writtenBy(store, 'output_deliveries', 'id', 'out-1')).toBe(await writtenBy(store, 'webhook_deliveries', 'id', claimed!.seq));
    expect(await outputs.get('out-1')).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, ok: true }] });

    // Each text of a batch was prepared on the connection once and run by name (EXECUTE), not parsed and planned at every run.
    const { rows } = await store.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'switchboard_batched_%' ORDER BY prepare_time`);
    expect(rows.map(({ statement }) => /^PREPARE \w+ AS (WITH row AS \(INSERT INTO \w+|\w+ \w+ \w+)/.exec(statement)?.[1]))
      .toEqual(['INSERT INTO runs', 'UPDATE runs SET', 'UPDATE webhook_deliveries SET', 'WITH row AS (INSERT INTO output_deliveries', 'UPDATE webhook_deliveries SET']);
  });

  it('go alone, without waiting for the disk, when no statement carries them', async () => {
    const store = await freshStore();
    await store.query('CREATE TABLE probe (n INTEGER, setting TEXT)');
    const asked = performance.now();
    await store.recordWrite(`INSERT INTO probe SELECT $1, current_setting('synchronous_commit')`, [1]);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(CARRY_WAIT_MS - 2);
    await Promise.all([store.recordWrite(`INSERT INTO probe SELECT $1, current_setting('synchronous_commit')`, [2]), store.carryingQuery('SELECT 1')]);
    expect((await store.query('SELECT n, setting FROM probe ORDER BY n')).rows).toEqual([{ n: 1, setting: 'off' }, { n: 2, setting: 'on' }]);
  });

  it('keep every character of a value written into the statement', async () => {
    const store = await freshStore();
    await store.query('CREATE TABLE probe (t TEXT, j JSONB, b BOOLEAN, n BIGINT, z TEXT)');
    const text = `it's a \\path\\ with 'quotes', $1, ‘unicode’ ✓,\nnew lines and E'\\x41'`;
    const json = JSON.stringify({ quote: "'", backslash: '\\', newline: '\n' });
    await Promise.all([store.recordWrite('INSERT INTO probe (t, j, b, n, z) VALUES ($1, $2, $3, $4, $5)', [text, json, false, 2 ** 40, null]), store.carryingQuery('SELECT 1')]);
    expect((await store.query('SELECT t, j, b, n, z FROM probe')).rows).toEqual([{ t: text, j: JSON.parse(json), b: false, n: 2 ** 40, z: null }]);
  });

  it('lose only the one write PostgreSQL refuses; the rest of its batch and the carrying statement go on', async () => {
    const store = await freshStore();
    await store.query('CREATE TABLE probe (n INTEGER PRIMARY KEY)');
    await store.query('INSERT INTO probe VALUES (2)');
    const writes = Promise.allSettled([1, 2, 3].map((n) => store.recordWrite('INSERT INTO probe VALUES ($1)', [n])));
    const carried = store.carryingQuery<{ n: number }>('SELECT COUNT(*)::int AS n FROM probe');
    const outcomes = await writes;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect((await carried).rows).toEqual([{ n: 3 }]);
  });
});
