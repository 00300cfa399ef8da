import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import type { CallbackListener } from '../../source/mcp/oauth-callback.js';
import { PINNED_CALLBACK_PORTS } from '../../source/mcp/oauth-config.js';
import { startLogin } from '../../source/mcp/oauth-login.js';
import { resolveMcpServer } from '../../source/mcp/server-config.js';
import { tokensDirOf, type TokenFile } from '../../source/mcp/token-store.js';
import { call, makeManager, servers, until } from '../helpers/mcp.js';
import { approveInBrowser, startOAuthPeers, type OAuthPeers } from '../helpers/oauth.js';
import { tempHome } from '../helpers/temp-home.js';

const DOCUMENT = 'https://switchboard.example/oauth/client.json';
const UA = 'SwitchboardTest/1.0';
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function peers(options?: Parameters<typeof startOAuthPeers>[0]): Promise<OAuthPeers> {
  const started = await startOAuthPeers(options);
  cleanups.push(() => started.close());
  return started;
}

function entry(p: OAuthPeers, oauth: Record<string, unknown> = { client_metadata_url: DOCUMENT, user_agent: UA }): McpServerConfig {
  return { url: p.mcpUrl, auth: 'oauth', oauth, connect_timeout: 10, timeout: 10 } as McpServerConfig;
}

function setup(p: OAuthPeers, config: McpServerConfig = entry(p)) {
  const home = tempHome();
  const { manager, registry } = makeManager(home.root);
  cleanups.push(() => manager.stop());
  const tokensDir = tokensDirOf(home.root);
  const read = (file: string) => JSON.parse(fs.readFileSync(path.join(tokensDir, file), 'utf8')) as TokenFile;
  return { home, manager, registry, tokensDir, read, config };
}

/** Logs in through the manager; the "browser" follows the redirects and lands on our listener. */
async function loginVia(manager: ReturnType<typeof makeManager>['manager'], name: string) {
  const listeners: Array<Pick<CallbackListener, 'port' | 'pinned' | 'randomBecause'>> = [];
  const notices: string[] = [];
  const handle = manager.login(name, {
    onUrl: (url, listener) => {
      listeners.push(listener);
      void approveInBrowser(url).then((callback) => fetch(callback));
    },
    onNotice: (text) => notices.push(text),
  });
  const result = await handle.done;
  return { result, listeners, notices };
}

describe('MCP OAuth against oidc-provider', () => {
  it('connect -> needs-login -> login (pinned port, DCR) -> tool call; token files 0600 in a 0700 folder; user_agent only at the token endpoint', async () => {
    const p = await peers();
    const { manager, registry, tokensDir, read, config } = setup(p);
    await manager.start(servers({ srv: config }), { wait: true });
    expect(manager.list()[0]).toMatchObject({ status: 'needs-login' });
    expect(manager.list()[0]!.reason).toContain('run: switchboard mcp login srv');

    const { result, listeners } = await loginVia(manager, 'srv');
    expect(listeners[0]!.pinned).toBe(true);
    expect(PINNED_CALLBACK_PORTS).toContain(listeners[0]!.port);
    expect(result.usedDocument).toBe(false); // oidc-provider here does not advertise client metadata documents
    expect(Date.parse(result.expiresAt!)).toBeGreaterThan(Date.now());

    await until(() => manager.list()[0]?.status === 'ready', 'ready after login');
    expect((await call(registry, 'mcp__srv__whoami')).text).toBe('alice');

    expect(fs.statSync(tokensDir).mode & 0o777).toBe(0o700);
    for (const file of ['srv.json', 'srv.client.json']) expect(fs.statSync(path.join(tokensDir, file)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(tokensDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const saved = read('srv.json');
    expect(saved.tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String), expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(saved.tokens).not.toHaveProperty('expires_in');

    const tokenRequests = p.seen.filter((r) => r.peer === 'as' && r.path === '/token');
    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(tokenRequests.every((r) => r.userAgent === UA)).toBe(true);
    const others = p.seen.filter((r) => !(r.peer === 'as' && r.path === '/token'));
    expect(others.some((r) => r.peer === 'mcp')).toBe(true);
    expect(others.filter((r) => r.userAgent === UA)).toEqual([]);
  });

  it('a login from another process (mcp login) brings a needs-login server back without a restart', async () => {
    const p = await peers();
    const { home, manager, registry, tokensDir, config } = setup(p);
    await manager.start(servers({ srv: config }), { wait: true });
    expect(manager.list()[0]).toMatchObject({ status: 'needs-login' });
    // What `switchboard mcp login srv` does in its own process: a login that writes the same token files.
    const login = startLogin({
      server: resolveMcpServer('srv', config, [], home.root)!, tokensDir, logger: pino({ level: 'silent' }),
      onUrl: (url) => void approveInBrowser(url).then((callback) => fetch(callback)),
    });
    await login.done;
    await until(() => manager.list()[0]?.status === 'ready', 'ready after a login elsewhere', 10_000);
    expect((await call(registry, 'mcp__srv__whoami')).text).toBe('alice');
  });

  it('a 401 on a tool call refreshes once and retries; a refresh answer without a refresh token keeps the old one', async () => {
    const p = await peers();
    const { manager, registry, read, config } = setup(p);
    await manager.start(servers({ srv: config }), { wait: true });
    await loginVia(manager, 'srv');
    await until(() => manager.list()[0]?.status === 'ready', 'ready after login');
    const before = read('srv.json').tokens!;

    p.stripRefreshTokens();
    p.refuseToken(before.access_token);
    expect((await call(registry, 'mcp__srv__whoami')).text).toBe('alice');
    const after = read('srv.json').tokens!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBe(before.refresh_token);
    const refreshes = p.seen.filter((r) => r.peer === 'as' && r.path === '/token');
    expect(refreshes.length).toBe(2); // the code exchange and one refresh
  });

  it('a failed refresh means needs-login with the hint, and no browser step', async () => {
    const p = await peers();
    const { manager, registry, tokensDir, read, config } = setup(p);
    await manager.start(servers({ srv: config }), { wait: true });
    await loginVia(manager, 'srv');
    await until(() => manager.list()[0]?.status === 'ready', 'ready after login');
    const file = read('srv.json');
    p.refuseToken(file.tokens!.access_token);
    fs.writeFileSync(path.join(tokensDir, 'srv.json'), JSON.stringify({ ...file, tokens: { ...file.tokens, refresh_token: 'not-a-refresh-token' } }));
    const authorizeBefore = p.seen.filter((r) => r.path === '/auth').length;

    const failed = call(registry, 'mcp__srv__whoami');
    await expect(failed).rejects.toThrow('run: switchboard mcp login srv');
    expect(manager.list()[0]).toMatchObject({ status: 'needs-login', reason: expect.stringContaining('run: switchboard mcp login srv') });
    expect(p.seen.filter((r) => r.path === '/auth').length).toBe(authorizeBefore);
    expect(read('srv.json').tokens).toBeUndefined();
  });

  it('invalid_client after presenting the document: marker written, DCR from then on; mcp login clears the marker and tries the document again', async () => {
    const p = await peers({ refuseDocument: DOCUMENT });
    const { manager, registry, tokensDir, config } = setup(p);
    await manager.start(servers({ srv: config }), { wait: true });
    const first = await loginVia(manager, 'srv');
    expect(first.listeners).toHaveLength(2);
    expect(first.listeners[0]!.pinned).toBe(true);
    expect(first.listeners[1]).toMatchObject({ pinned: false, randomBecause: expect.stringContaining('refused the client metadata document') });
    expect(first.notices.join('\n')).toContain('refused the client metadata document (invalid_client)');
    expect(first.result.usedDocument).toBe(false);
    expect(fs.readFileSync(path.join(tokensDir, 'srv.cimd-off'), 'utf8')).toContain(`invalid_client for ${DOCUMENT}`);
    expect(fs.statSync(path.join(tokensDir, 'srv.cimd-off')).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(tokensDir, 'srv.client.json'))).toBe(true);
    await until(() => manager.list()[0]?.status === 'ready', 'ready after the DCR login');
    expect((await call(registry, 'mcp__srv__whoami')).text).toBe('alice');

    // The next login clears the marker, tries the document on a pinned port, and is refused again.
    const documentTries = () => p.seen.filter((r) => r.path === '/auth').length;
    const before = documentTries();
    const second = await loginVia(manager, 'srv');
    expect(second.notices[0]).toContain('cleared the earlier refusal');
    expect(second.listeners[0]!.pinned).toBe(true);
    expect(documentTries() - before).toBe(2); // the document, then the registered client
    expect(fs.existsSync(path.join(tokensDir, 'srv.cimd-off'))).toBe(true);
  });

  it('concurrent logins hold different pinned ports; with all five taken the sixth gets a random port', async () => {
    const p = await peers();
    const home = tempHome();
    const controller = new AbortController();
    const logger = pino({ level: 'silent' });
    const seen: Array<Pick<CallbackListener, 'port' | 'pinned' | 'randomBecause'>> = [];
    const handles = [1, 2, 3, 4, 5, 6].map((n) => {
      const server = resolveMcpServer(`s${n}`, entry(p), [])!;
      let reached!: () => void;
      const ready = new Promise<void>((resolve) => (reached = resolve));
      const handle = startLogin({ server, tokensDir: tokensDirOf(home.root), logger, signal: controller.signal, onUrl: (_url, listener) => { seen[n - 1] = listener; reached(); } });
      handle.done.catch(() => {});
      return { handle, ready };
    });
    // The first five are bound before the sixth starts looking.
    await Promise.all(handles.slice(0, 5).map((h) => h.ready));
    await handles[5]!.ready;
    controller.abort();
    await Promise.allSettled(handles.map((h) => h.handle.done));

    const pinned = seen.slice(0, 5);
    expect(pinned.every((l) => l.pinned)).toBe(true);
    expect(new Set(pinned.map((l) => l.port)).size).toBe(5);
    expect(pinned.map((l) => l.port).sort()).toEqual([...PINNED_CALLBACK_PORTS]);
    expect(seen[5]).toMatchObject({ pinned: false, randomBecause: 'all of ports 27890-27894 are taken' });
    expect(PINNED_CALLBACK_PORTS).not.toContain(seen[5]!.port);
  });

  it('no redirect while the document is in play: the timeout names the document and points at cimd: false', async () => {
    const p = await peers({ refuseDocument: DOCUMENT });
    const home = tempHome();
    const server = resolveMcpServer('srv', entry(p), [])!;
    const handle = startLogin({ server, tokensDir: tokensDirOf(home.root), logger: pino({ level: 'silent' }), waitMs: 300, onUrl: () => {} });
    await expect(handle.done).rejects.toThrow(`no redirect within 0.005 minutes. The authorization server may be unable to fetch or accept the client metadata document ${DOCUMENT}`);
    await expect(handle.done).rejects.toThrow('set mcp_servers.srv.oauth.cimd to false');
  });

  it('overrides force a random port; a callback with a foreign state is refused and the login keeps waiting', async () => {
    const p = await peers();
    const home = tempHome();
    const server = resolveMcpServer('srv', entry(p, { client_metadata_url: DOCUMENT, client_name: 'Ops Switchboard' }), [])!;
    let listener!: Pick<CallbackListener, 'port' | 'pinned' | 'randomBecause' | 'redirectUrl'>;
    let authorizationUrl!: string;
    let reached!: () => void;
    const ready = new Promise<void>((resolve) => (reached = resolve));
    const handle = startLogin({ server, tokensDir: tokensDirOf(home.root), logger: pino({ level: 'silent' }), onUrl: (url, l) => { listener = l; authorizationUrl = url; reached(); } });
    await ready;
    expect(listener).toMatchObject({ pinned: false, randomBecause: 'oauth.client_name set' });
    const forged = await fetch(`${listener.redirectUrl}?code=x&state=forged`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('state parameter does not match');
    // The pasted redirect URL completes the same login.
    const callback = await approveInBrowser(authorizationUrl);
    expect(handle.offer(callback)).toEqual({ ok: true, value: true });
    expect((await handle.done).expiresAt).toEqual(expect.any(String));
  });
});
