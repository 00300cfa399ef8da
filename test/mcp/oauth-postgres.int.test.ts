import fs from 'node:fs';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import { fileTokenStores, tokensDirOf, type TokenStore } from '../../source/mcp/token-store.js';
import { pgTokenStores } from '../../source/store/pg/mcp-oauth.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';
import { call, makeManager, servers, until } from '../helpers/mcp.js';
import { approveInBrowser, startOAuthPeers, type OAuthPeers } from '../helpers/oauth.js';
import { tempHome } from '../helpers/temp-home.js';

const postgres = usePostgres();
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function peers(): Promise<OAuthPeers> {
  const started = await startOAuthPeers();
  cleanups.push(() => started.close());
  return started;
}

const entry = (p: OAuthPeers): McpServerConfig => ({ url: p.mcpUrl, auth: 'oauth', connect_timeout: 10, timeout: 10 }) as McpServerConfig;

/** A "node": its own home, its own pool on the shared database, its own MCP manager, and its log lines. */
async function node(url: string) {
  const pool = await openPgStore(url);
  cleanups.push(() => pool.close());
  const home = tempHome();
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const { manager, registry } = makeManager(home.root, { tokens: pgTokenStores(pool), logger });
  cleanups.push(() => manager.stop());
  return { pool, home, logs, manager, registry };
}

/** The console's login (`/mcp`, `l`) on one node: the "browser" follows the redirects to our listener. */
async function loginOn(n: Awaited<ReturnType<typeof node>>, name: string): Promise<void> {
  const handle = n.manager.login(name, { onUrl: (authorizationUrl) => void approveInBrowser(authorizationUrl).then((callback) => fetch(callback)) });
  await handle.done;
}

async function row(pool: PgStore, server: string) {
  const { rows } = await pool.query<{ tokens: { access_token: string; refresh_token?: string }; registration: { client_id: string; client_secret?: string } | null; version: number }>(
    'SELECT tokens, registration, version FROM mcp_oauth WHERE server = $1', [server]);
  return rows[0]!;
}

/** Nothing secret in any node's log: access and refresh tokens, the client secret. */
function expectNoSecrets(logs: string[], secrets: Array<string | undefined>): void {
  const text = logs.join('\n');
  expect(text.length).toBeGreaterThan(0);
  for (const secret of secrets.filter((s): s is string => Boolean(s))) expect(text).not.toContain(secret);
}

describe('MCP OAuth tokens in PostgreSQL (cluster mode)', () => {
  it('the PostgreSQL store keeps what the files keep: tokens, registration, marker; the version moves with token writes', async () => {
    const pool = await openPgStore(await postgres().freshDatabase());
    cleanups.push(() => pool.close());
    const stores: Array<[string, TokenStore]> = [['files', fileTokenStores(tokensDirOf(tempHome().root)).of('a/b')], ['postgres', pgTokenStores(pool).of('a/b')]];
    for (const [kind, store] of stores) {
      expect(await store.readTokenFile(), kind).toEqual({});
      expect(await store.hasRegistration(), kind).toBe(false);
      const v0 = await store.version();
      await store.updateTokenFile((file) => ({ ...file, tokens: { access_token: 'at', token_type: 'Bearer', expires_at: '2030-01-01T00:00:00.000Z' }, pendingScope: 'mcp' }));
      const v1 = await store.version();
      expect(v1, kind).not.toBe(v0);
      expect(await store.readTokenFile(), kind).toEqual({ tokens: { access_token: 'at', token_type: 'Bearer', expires_at: '2030-01-01T00:00:00.000Z' }, pendingScope: 'mcp' });
      await store.writeRegistration({ client_id: 'c1', client_secret: 's1' });
      expect(await store.readRegistration(), kind).toEqual({ client_id: 'c1', client_secret: 's1' });
      await store.removeRegistration();
      expect(await store.hasRegistration(), kind).toBe(false);
      await store.writeMarker('invalid_client');
      expect(await store.documentRefused(), kind).toBe(true);
      await store.clearMarker();
      expect(await store.documentRefused(), kind).toBe(false);
      expect(await store.version(), kind).toBe(v1); // only token writes count (the files' mtime)
      await store.exclusive((current, save) => save({ ...current, pendingScope: undefined }));
      expect(await store.readTokenFile(), kind).toEqual({ tokens: { access_token: 'at', token_type: 'Bearer', expires_at: '2030-01-01T00:00:00.000Z' } });
      expect(store.where.marker, kind).toContain(kind === 'files' ? 'a%2Fb.cimd-off' : 'mcp_oauth row of server a/b');
    }
  });

  it('a login on one node serves the others: one waiting for a login connects, a new one connects without its own login; no token files', async () => {
    const p = await peers();
    const url = await postgres().freshDatabase();
    const [a, b] = [await node(url), await node(url)];
    await b.manager.start(servers({ srv: entry(p) }), { wait: true });
    expect(b.manager.list()[0]).toMatchObject({ status: 'needs-login' });
    await a.manager.start(servers({ srv: entry(p) }), { wait: true });
    await loginOn(a, 'srv');
    await until(() => a.manager.list()[0]?.status === 'ready', 'node a ready after its login');

    // Node b notices the login by the row's version, as a home notices a token file's mtime.
    await until(() => b.manager.list()[0]?.status === 'ready', 'node b ready after the login on node a', 10_000);
    expect((await call(b.registry, 'mcp__srv__whoami')).text).toBe('alice');

    const authorizations = p.seen.filter((r) => r.path === '/auth').length;
    const c = await node(url);
    await c.manager.start(servers({ srv: entry(p) }), { wait: true });
    expect(c.manager.list()[0]).toMatchObject({ status: 'ready' });
    expect((await call(c.registry, 'mcp__srv__whoami')).text).toBe('alice');
    expect(p.seen.filter((r) => r.path === '/auth').length).toBe(authorizations);

    for (const n of [a, b, c]) expect(fs.existsSync(tokensDirOf(n.home.root))).toBe(false);
    const saved = await row(a.pool, 'srv');
    expect(saved.tokens).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(saved.registration).toMatchObject({ client_id: expect.any(String) });
    expectNoSecrets([...a.logs, ...b.logs, ...c.logs], [saved.tokens.access_token, saved.tokens.refresh_token, saved.registration?.client_secret]);
  });

  it('two nodes refused the same access token at once: one refresh at the token endpoint, both go on with the new token', async () => {
    const p = await peers();
    const url = await postgres().freshDatabase();
    const [a, b] = [await node(url), await node(url)];
    await a.manager.start(servers({ srv: entry(p) }), { wait: true });
    await loginOn(a, 'srv');
    await b.manager.start(servers({ srv: entry(p) }), { wait: true });
    await until(() => a.manager.list()[0]?.status === 'ready' && b.manager.list()[0]?.status === 'ready', 'both nodes ready');
    const before = await row(a.pool, 'srv');

    // The token endpoint holds refreshes, so both nodes meet the 401 before either refresh is answered.
    const release = p.holdRefreshes();
    p.refuseToken(before.tokens.access_token);
    const calls = [call(a.registry, 'mcp__srv__whoami'), call(b.registry, 'mcp__srv__whoami')];
    const lockWaiters = async () => Number((await a.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0]!.n);
    // One node's refresh is at the token endpoint and the other waits for the row (without the lock: two refreshes).
    await until(async () => p.refreshes() >= 2 || (p.refreshes() === 1 && (await lockWaiters()) === 1), 'one refresh in flight and one node waiting on the row lock');
    const waitedOnLock = p.refreshes() === 1;
    release();
    const answers = await Promise.allSettled(calls);
    expect(p.refreshes()).toBe(1);
    expect(waitedOnLock).toBe(true);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value.text : String(a.reason)))).toEqual(['alice', 'alice']);

    const after = await row(a.pool, 'srv');
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    // Both nodes now send the new token: more calls need no further refresh.
    expect((await call(a.registry, 'mcp__srv__whoami')).text).toBe('alice');
    expect((await call(b.registry, 'mcp__srv__whoami')).text).toBe('alice');
    expect(p.refreshes()).toBe(1);
    expectNoSecrets([...a.logs, ...b.logs], [before.tokens.access_token, before.tokens.refresh_token, after.tokens.access_token, after.tokens.refresh_token]);
  });
});
