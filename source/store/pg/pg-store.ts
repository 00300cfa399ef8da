import pg from 'pg';
import type { Migration } from '../migrations.js';
import { pgMigrations } from './migrations.js';
import { StoreUnavailableError } from '../store-fault.js';
import { createCarriedWrites } from './carried-writes.js';
import { batchable, sendBatch, type Statement } from './statement-batch.js';
import { pgProfileFromEnv, statementLabel, type PgProfile } from './profile.js';

/** An open PostgreSQL store: a pool, and transactions on one of its connections. */
export interface PgStore {
  readonly pool: pg.Pool;
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /**
   * The webhook intake's lane (the accept and the rate check): connections of its own, so a 202
   * never waits for a connection behind the runs' writes. Its callers batch (batch.ts), so a few do.
   */
  intakeQuery<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /**
   * A record write: a row whose loss in a crash of PostgreSQL is harmless, made without a round
   * trip of its own. It goes with this node's next `carryingQuery`, or alone within
   * CARRY_WAIT_MS on connections that commit without waiting for their WAL to reach the disk
   * (synchronous_commit off: a third of the database's CPU of a durable commit on this kind of
   * machine), in the order writes were asked for (carried-writes.ts). A crash of the database
   * loses at most the last few hundred ms of these, never a commit made durable after them (the WAL
   * is flushed in order), and what reads them after a crash copes (a run without its record is run
   * again; records of sends to targets that cost nothing to repeat). Settles once committed.
   */
  recordWrite(sql: string, values?: unknown[]): Promise<void>;
  /** A statement of the runs' path (a claim, a final state) that takes the record writes waiting with it. */
  carryingQuery<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * BIGINT (int8) comes back as a number: ids and millisecond times stay far below 2^53. Set on our
 * pools only, not on the pg module as a whole.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

/**
 * Serialises the transactions about one key (a route's delivery id, a subscription's name) across
 * every node: a second transaction on the key waits until the first ends, and then reads what it
 * committed (READ COMMITTED takes a new snapshot per statement). Works for rows that do not exist yet.
 */
export async function lockKey(client: pg.PoolClient, key: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/** The intake lane's connections: a batch of accepts in flight, the next one, and a rate check. */
const INTAKE_CONNECTIONS = 3;
/** The connections of record writes that go alone: their statements are short and never wait for the disk. */
const RECORD_CONNECTIONS = 3;
/** How long a record write waits for a carrying statement before it goes alone. */
export const CARRY_WAIT_MS = 20;

/** Any fixed number: the key of the advisory lock every node takes to migrate (one at a time). */
const MIGRATION_LOCK = 726_514_001;

/**
 * Connects to `url` (`postgres://…`) and brings its schema up to date. Nodes starting together
 * migrate once: each takes the same advisory lock for its migration transaction and finds the
 * versions the first one applied.
 */
export async function openPgStore(url: string, migrations: readonly Migration[] = pgMigrations, options: { connections?: number; intakeConnections?: number } = {}): Promise<PgStore> {
  // A database that does not answer fails the start after 10 s instead of hanging it.
  const pool = new pg.Pool({ connectionString: url, types, max: options.connections ?? 10, connectionTimeoutMillis: 10_000 });
  // Connect only when first asked (a command's store never does).
  const intakePool = new pg.Pool({ connectionString: url, types, max: options.intakeConnections ?? INTAKE_CONNECTIONS, connectionTimeoutMillis: 10_000 });
  const recordPool = new pg.Pool({ connectionString: url, types, max: RECORD_CONNECTIONS, connectionTimeoutMillis: 10_000, options: '-c synchronous_commit=off' });
  const pools = [pool, intakePool, recordPool];
  // An idle connection that dies (a database restart) must not take the process down with it.
  for (const each of pools) each.on('error', () => {});
  const transaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  try {
    await transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)');
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version));
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
      }
    });
  } catch (error) {
    await Promise.all(pools.map((each) => each.end()));
    throw error;
  }
  const profile = pgProfileFromEnv(`pool of ${options.connections ?? 10}`);
  const queryOn = (on: pg.Pool) => <R extends pg.QueryResultRow>(sql: string, values?: unknown[], label = statementLabel(sql)) => {
    const config = values === undefined ? sql : { name: statementName(sql), text: sql, values };
    return profile ? profiledQuery<R>(on, profile, label, config) : on.query<R>(config);
  };
  const query = queryOn(pool);
  const carried = createCarriedWrites<Statement>({
    send: (statements) => sendBatch(recordPool, statements, profile && { profile, label: 'record writes alone' }),
    rolledBack: refusedByServer,
    waitMs: CARRY_WAIT_MS,
  });
  return {
    pool,
    query,
    intakeQuery: queryOn(intakePool),
    recordWrite: (sql, values = []) => (batchable({ sql, values }) ? carried.add({ sql, values }) : unwritable(sql)),
    carryingQuery: <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => {
      const statement = { sql, values: values ?? [] };
      return carried.carry(batchable(statement) ? statement : undefined,
        (statements) => sendBatch<R>(pool, statements, profile && { profile, label: `${statementLabel(sql)} + record writes` }), () => query<R>(sql, values));
    },
    transaction,
    close: async () => {
      await carried.flush();
      await Promise.all(pools.map((each) => each.end()));
    },
  };
}

function unwritable(sql: string): never {
  throw new TypeError(`a record write takes text, numbers, booleans and null only: ${statementLabel(sql)}`);
}

/** pool.query's steps one by one, timed: the wait for a connection, then the round trip. */
async function profiledQuery<R extends pg.QueryResultRow>(pool: pg.Pool, profile: PgProfile, label: string, config: string | pg.QueryConfig): Promise<pg.QueryResult<R>> {
  const asked = performance.now();
  const client = await pool.connect();
  const connected = performance.now();
  try {
    return await client.query<R>(config as pg.QueryConfig);
  } finally {
    client.release();
    profile.record(label, connected - asked, performance.now() - connected);
  }
}

/**
 * Parameterised statements are prepared once per connection under a name (each of our SQL texts is
 * fixed): PostgreSQL then skips parsing and planning them at every run, a good part of its CPU for
 * statements this short. A PgBouncer in front must be 1.21 or later (protocol-level prepared
 * statements) in transaction mode. Names are made per text, up to a bound, past which a text runs
 * unnamed: a text built at run time could otherwise fill every connection with statements.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 500;
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `switchboard_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * PostgreSQL answered ERROR: the statement's transaction was rolled back. Anything else (a lost
 * connection, FATAL or PANIC, which end it) may have come after a commit: nobody knows.
 */
export const refusedByServer = (error: unknown): boolean => error instanceof pg.DatabaseError && error.severity === 'ERROR';

/** Connection failures (the server down, restarting, or out of connections): not a fault of the data. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

/**
 * A PostgreSQL error meaning the store cannot be reached now, as a `StoreUnavailableError` (the
 * intake answers 503 with retry-after, as for a locked or full SQLite file); anything else as it is.
 */
export function asStoreFault(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const connection = (code !== undefined && (CONNECTION_CODES.has(code) || code.startsWith('08')))
    || /timeout exceeded when trying to connect|Connection terminated/.test(message ?? '');
  return connection ? new StoreUnavailableError({ kind: 'unreachable', message: message ?? String(code), sinceMs: Date.now() }, 5) : error;
}
