import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { runCli, startCli } from '../helpers/cli.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { preparedHome } from '../helpers/host.js';
import { approveInBrowser, startOAuthPeers, type OAuthPeers } from '../helpers/oauth.js';

/**
 * Cluster mode (issue #19): MCP OAuth tokens live in the shared PostgreSQL. Two real `switchboard
 * gateway` processes wait for a login; `switchboard mcp login` run on one home (with the database URL)
 * brings both up, and no token reaches a log.
 */
const postgres = usePostgres();

const { running, closers: cleanups } = useClusterCleanup();

const noDisplay = { DISPLAY: '', WAYLAND_DISPLAY: '' };
const oauthHome = (p: OAuthPeers) => preparedHome((config) => {
  config.mcp_servers = { srv: { url: p.mcpUrl, auth: 'oauth', connect_timeout: 10 } as McpServerConfig };
});

describe('MCP OAuth tokens shared by gateways on one PostgreSQL', () => {
  it('mcp login on one home serves both gateways; mcp test on the other home uses the same tokens; no token in any log', { timeout: 180_000 }, async () => {
    const p = await startOAuthPeers();
    cleanups.push(() => p.close());
    const url = await postgres().freshDatabase();
    const homes = [oauthHome(p), oauthHome(p)];
    const nodes = await Promise.all(homes.map((home) => startGatewayNode(home, url, running)));
    for (const node of nodes) await node.cli.waitFor('MCP server srv needs-login', 30_000);

    const login = startCli(['mcp', 'login', 'srv', '--home', homes[0]!.root], { env: { ...noDisplay, SWITCHBOARD_DATABASE_URL: url }, stdin: 'pipe' });
    running.push(login);
    const printed = await login.waitFor(/paste the address/, 30_000);
    const authorizationUrl = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(printed)?.[1];
    expect(authorizationUrl).toBeDefined();
    login.child.stdin!.write(`${await approveInBrowser(authorizationUrl!)}\n`);
    const loggedIn = await login.exited;
    expect(loggedIn.stderr).toContain('Logged in to srv');
    expect(loggedIn.code).toBe(0);

    // Each gateway notices the new row version within its 2 s check and connects with the tokens.
    for (const node of nodes) await node.cli.waitFor('MCP server srv ready', 30_000);
    const test = await runCli(['mcp', 'test', 'srv', '--home', homes[1]!.root], { env: { SWITCHBOARD_DATABASE_URL: url } });
    expect(test.stdout).toContain('server srv: ready');
    expect(p.seen.filter((r) => r.path === '/auth')).toHaveLength(1);

    const db: PgStore = await openPgStore(url);
    cleanups.push(() => db.close());
    const { rows: [row] } = await db.query<{ tokens: { access_token: string; refresh_token: string }; registration: { client_secret?: string } }>(
      `SELECT tokens, registration FROM mcp_oauth WHERE server = 'srv'`);
    const secrets = [row!.tokens.access_token, row!.tokens.refresh_token, row!.registration.client_secret].filter((s): s is string => Boolean(s));
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    for (const home of homes) expect(fs.existsSync(path.join(home.root, 'mcp-tokens'))).toBe(false);
    const logs = [...nodes.map((node) => node.cli.output()), loggedIn.stdout, loggedIn.stderr, test.stdout, test.stderr,
      ...homes.map((home) => (fs.existsSync(home.gatewayLog) ? fs.readFileSync(home.gatewayLog, 'utf8') : ''))].join('\n');
    expect(logs).toContain('MCP server srv ready');
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });

  it('mcp list needs the database only for OAuth servers; an unreachable one is named without its password', { timeout: 60_000 }, async () => {
    const env = { SWITCHBOARD_DATABASE_URL: 'postgres://switchboard:hunter2-secret@127.0.0.1:1/switchboard' };
    const plain = await runCli(['mcp', 'list', '--home', preparedHome().root], { env });
    expect(`${plain.stdout}${plain.stderr}`).not.toContain('Cannot open the PostgreSQL store');
    expect(plain.code).toBe(0);

    const p = await startOAuthPeers();
    cleanups.push(() => p.close());
    const listed = await runCli(['mcp', 'list', '--home', oauthHome(p).root], { env });
    const said = `${listed.stdout}${listed.stderr}`;
    expect(said).toContain('Cannot open the PostgreSQL store at postgres://switchboard:***@127.0.0.1:1/switchboard');
    expect(said).not.toContain('hunter2-secret');
    expect(listed.code).not.toBe(0);
  });
});
