import pg from 'pg';
import type { PgProfile } from './profile.js';
import { literalsOf, withLiterals, writableAsLiterals } from './sql-literal.js';

export interface Statement {
  sql: string;
  values: readonly unknown[];
}

/** True when the statement can go in a batch: each of its values can be written as a literal. */
export const batchable = (statement: Statement): boolean => writableAsLiterals(statement.values);

/** The most texts given a name of their own (our record writes and carrying statements are a handful). */
const MAX_NAMED_TEXTS = 100;
const names = new Map<string, string>();
/** Texts PostgreSQL would not prepare alone (a parameter whose type the text does not fix): sent with their values written in. */
const unpreparable = new Set<string>();
/** Per connection, the names prepared on it. */
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();
/**
 * Off once a statement named by PREPARE was missing, or there already, on the connection that ran
 * it: a pooler in transaction mode (PgBouncer) between this node and PostgreSQL hands each
 * transaction a server connection of its own, and keeps protocol-level prepared statements only.
 * Every batch then goes with its values written in (parsed and planned each time).
 */
let namedStatements = true;
/** could not determine the data type of a parameter (the text alone does not fix it) */
const INDETERMINATE_TYPE = '42P18';
/** a prepared statement that does not exist, or already does */
const NAMES_NOT_KEPT = new Set(['26000', '42P05']);

/**
 * Sends `statements` in one simple query on one connection: one round trip and one transaction
 * (the implicit one of a query of several statements), with a result per statement. Each runs as
 * `EXECUTE name(literals)` of a statement prepared on that connection (once per connection and
 * text, a round trip the first time), so PostgreSQL neither parses nor plans it again, as for
 * the statements pg prepares itself; a text without a name goes with its values written in.
 */
export async function sendBatch<R extends pg.QueryResultRow>(pool: pg.Pool, statements: readonly Statement[], profile?: { profile: PgProfile; label: string }): Promise<Array<pg.QueryResult<R>>> {
  const asked = performance.now();
  const client = await pool.connect();
  const connected = performance.now();
  try {
    const parts: string[] = [];
    for (const statement of statements) parts.push(`${await executable(client, statement)};`);
    const answered = (await client.query<R>(parts.join('\n'))) as pg.QueryResult<R> | Array<pg.QueryResult<R>>;
    client.release();
    return Array.isArray(answered) ? answered : [answered];
  } catch (error) {
    if (NAMES_NOT_KEPT.has((error as { code?: string }).code ?? '')) namedStatements = false;
    client.release(error as Error); // as pg's pool.query does: a connection that failed a query is not reused
    throw error;
  } finally {
    profile?.profile.record(profile.label, connected - asked, performance.now() - connected);
  }
}

async function executable(client: pg.PoolClient, { sql, values }: Statement): Promise<string> {
  const name = await preparedName(client, sql);
  if (name === undefined) return withLiterals(sql, values)!;
  const literals = literalsOf(values);
  if (!literals) throw new TypeError('a batched statement takes text, numbers, booleans and null only');
  return literals.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${literals.join(', ')})`;
}

async function preparedName(client: pg.PoolClient, sql: string): Promise<string | undefined> {
  if (!namedStatements || unpreparable.has(sql)) return undefined;
  let name = names.get(sql);
  if (name === undefined) {
    if (names.size >= MAX_NAMED_TEXTS) return undefined;
    name = `switchboard_batched_${names.size + 1}`;
    names.set(sql, name);
  }
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  if (prepared.has(name)) return name;
  try {
    await client.query(`PREPARE ${name} AS ${sql}`);
  } catch (error) {
    if ((error as { code?: string }).code !== INDETERMINATE_TYPE) throw error; // the batch fails; its writes are retried one by one
    unpreparable.add(sql);
    return undefined;
  }
  prepared.add(name);
  return name;
}
