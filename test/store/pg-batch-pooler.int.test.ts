import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * Record writes behind a pooler that does not keep SQL-level prepared statements (PgBouncer in
 * transaction mode): a statement named by PREPARE is missing on the connection that runs the batch.
 * Simulated on a real PostgreSQL by deallocating the name between two batches. Its own file: the
 * switch to values written in holds for the process.
 */
const postgres = usePostgres();
const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

describe('record writes when prepared names are not kept', () => {
  it('are retried one by one with their values written in, and every later batch goes that way', async () => {
    const store = await openPgStore(await postgres().freshDatabase(), undefined, { connections: 1 });
    stores.push(store);
    await store.query('CREATE TABLE probe (n INTEGER)');
    const batch = (n: number) => Promise.all([store.recordWrite('INSERT INTO probe VALUES ($1)', [n]), store.carryingQuery('SELECT 1 AS one')]);
    await batch(1);
    const named = async () => (await store.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'switchboard_batched_%'`)).rows.map((row) => row.name);
    const [name] = await named();
    expect(name).toBeDefined();
    await store.query(`DEALLOCATE ${name}`); // what a pooler's other server connection looks like
    await batch(2);
    await batch(3);
    expect((await store.query('SELECT n FROM probe ORDER BY n')).rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await named()).toEqual([]); // nothing prepared again: the batches went with their values written in
  });
});
