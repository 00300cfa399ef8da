import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import type { HomeLayout } from '../../source/config/home.js';
import { startCli, stopClis, type RunningCli } from './cli.js';
import { connectPostgres, type TestPostgres } from './postgres.js';

/** The run's real PostgreSQL (test/helpers/postgres-global.ts): `postgres().freshDatabase()` per test. */
export function usePostgres(): () => TestPostgres {
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    const adminUrl = inject('postgresAdminUrl');
    if (!adminUrl) throw new Error('No PostgreSQL for this run: test/helpers/postgres-global.ts starts one for files that call usePostgres(');
    postgres = await connectPostgres(adminUrl);
  }, 120_000);
  afterAll(async () => { await postgres?.stop(); });
  return () => postgres!;
}

export interface GatewayNode {
  cli: RunningCli;
  /** Its webhook listener, from its own log line (a restarted node's is the last one). */
  url: string;
}

/** A real `switchboard gateway` process on `home`, sharing the database at `databaseUrl`; listed in `running` for cleanup. */
export async function startGatewayNode(home: HomeLayout, databaseUrl: string, running: RunningCli[]): Promise<GatewayNode> {
  const cli = startCli(['gateway', '--home', home.root], { env: { SWITCHBOARD_DATABASE_URL: databaseUrl } });
  running.push(cli);
  await cli.waitFor('Control channel listening', 60_000);
  const urls = [...cli.output().matchAll(/Webhook listener on (http:\/\/127\.0\.0\.1:\d+)/g)];
  return { cli, url: urls.at(-1)![1]! };
}

/**
 * What a cluster test starts, cleaned up after each test: the gateway processes in `running` first,
 * killed (SIGKILL: nothing to wait for), then `closers`, last in first out (consoles, the test's
 * own connections, model servers).
 */
export function useClusterCleanup(): { running: RunningCli[]; closers: Array<() => unknown> } {
  const running: RunningCli[] = [];
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    await stopClis(running, 'SIGKILL');
    for (const close of closers.splice(0).reverse()) await close();
  });
  return { running, closers };
}
