import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';

const postgres = usePostgres();
const stores: PgStore[] = [];
afterEach(async () => { for (const store of stores.splice(0)) await store.close(); });

describe('statements on PostgreSQL', () => {
  it('prepares each parameterised text once per connection and runs it by name from then on', async () => {
    const store = await openPgStore(await postgres().freshDatabase(), [], { connections: 1 });
    stores.push(store);
    for (let n = 0; n < 3; n += 1) expect((await store.query<{ n: number }>('SELECT $1::int + 1 AS n', [n])).rows[0]!.n).toBe(n + 1);
    await store.query('SELECT 1 AS unparameterised');
    const { rows } = await store.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE name LIKE $1 ORDER BY statement', ['switchboard_%']);
    expect(rows.map((row) => row.statement)).toEqual(['SELECT $1::int + 1 AS n', 'SELECT statement FROM pg_prepared_statements WHERE name LIKE $1 ORDER BY statement']);
  });
});
