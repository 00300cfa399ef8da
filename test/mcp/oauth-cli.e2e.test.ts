import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackRedirectUris } from '../../source/mcp/oauth-config.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/mcp.js';
import { approveInBrowser, startOAuthPeers } from '../helpers/oauth.js';
import { tempHome } from '../helpers/temp-home.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home whose config.json holds these MCP servers. */
async function homeWith(servers: Record<string, unknown>) {
  const home = tempHome();
  expect((await runCli(['config', 'show', '--home', home.root])).code).toBe(0);
  const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(home.configFile, JSON.stringify({ ...config, mcp_servers: servers }, undefined, 2), { mode: 0o600 });
  return home;
}

/** No display: the CLI must never try to open a browser in these tests. */
const noDisplay = { DISPLAY: '', WAYLAND_DISPLAY: '' };

/** One self-signed certificate for 127.0.0.1 (its own CA) and an https server answering with `answer`. */
async function httpsDocumentServer(answer: (url: string, res: import('node:http').ServerResponse) => void) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cimd-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'pipe' });
  const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => answer(req.url ?? '/', res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: path.join(dir, 'cert.pem') };
}

describe('switchboard mcp login / client-metadata / check-metadata', () => {
  it('mcp login prints the URL, takes the pasted redirect URL, reports the expiry; a later mcp test uses the stored tokens', async () => {
    const peers = await startOAuthPeers();
    cleanups.push(() => peers.close());
    const home = await homeWith({ srv: { url: peers.mcpUrl, auth: 'oauth' } });
    const login: RunningCli = startCli(['mcp', 'login', 'srv', '--home', home.root], { env: noDisplay, stdin: 'pipe' });
    cleanups.push(async () => {
      if (login.child.exitCode === null) login.child.kill('SIGKILL');
      await login.exited;
    });
    const printed = await login.waitFor(/paste the address/);
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(printed)?.[1];
    expect(url).toBeDefined();
    expect(printed).toContain('(random port: no oauth.client_metadata_url)');
    login.child.stdin!.write('not a url\n');
    await login.waitFor('That redirect URL was not accepted: that is not a URL');
    login.child.stdin!.write(`${await approveInBrowser(url!)}\n`);
    const done = await login.exited;
    expect(done.stderr).toMatch(/Logged in to srv: the access token expires at \d{4}-\d\d-\d\dT[\d:.]+Z \(in 60 minutes\)\. Client identified by dynamic client registration\./);
    expect(done.code).toBe(0);
    expect(done.stderr).not.toContain(JSON.parse(fs.readFileSync(path.join(home.root, 'mcp-tokens', 'srv.json'), 'utf8')).tokens.access_token);

    const test = await runCli(['mcp', 'test', 'srv', '--home', home.root]);
    expect(test.stdout).toContain('server srv: ready');
    expect(test.stdout).toContain('mcp__srv__whoami');
  });

  it('without tokens, mcp list shows needs-login with the hint; login refuses unknown and non-OAuth servers', async () => {
    const peers = await startOAuthPeers();
    cleanups.push(() => peers.close());
    const home = await homeWith({ srv: { url: peers.mcpUrl, auth: 'oauth' }, plain: { url: peers.mcpUrl } });
    const list = await runCli(['mcp', 'list', '--home', home.root], { env: noDisplay });
    expect(list.stdout).toContain('srv  needs-login  streamable-http  era -  (server srv: not logged in (no client registration or tokens); run: switchboard mcp login srv)');
    expect(list.code).toBe(1);
    expect(peers.seen.filter((r) => r.path === '/auth')).toEqual([]);

    const unknown = await runCli(['mcp', 'login', 'nope', '--home', home.root]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: No server "nope" in mcp_servers');
    const plain = await runCli(['mcp', 'login', 'plain', '--home', home.root]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('error: server plain does not use OAuth');
    expect(plain.stderr).toContain('Set mcp_servers.plain.auth to "oauth"');
  });

  it('login says which server and address it could not reach', async () => {
    const port = await freePort();
    const home = await homeWith({ gone: { url: `http://127.0.0.1:${port}/mcp`, auth: 'oauth' } });
    const login = await runCli(['mcp', 'login', 'gone', '--no-browser', '--home', home.root], { env: noDisplay });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`error: server gone: login failed reaching http://127.0.0.1:${port}/mcp: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('client-metadata prints the document for a URL and rejects URLs that break spec 5.3', async () => {
    const printed = await runCli(['mcp', 'client-metadata', '--url', 'https://ops.example.com/switchboard/client.json']);
    expect(printed.code).toBe(0);
    const doc = JSON.parse(printed.stdout) as { client_id: string; redirect_uris: string[] };
    expect(doc.client_id).toBe('https://ops.example.com/switchboard/client.json');
    expect(doc.redirect_uris).toHaveLength(10);
    expect(doc.redirect_uris).toContain('http://127.0.0.1:27890/callback');
    expect(doc.redirect_uris).toContain('http://localhost:27894/callback');

    for (const [url, why] of [
      ['http://ops.example.com/c.json', 'must use https'],
      ['https://ops.example.com/', 'needs a path'],
      ['https://ops.example.com/c.json#x', 'must not have a fragment'],
      ['https://me:pw@ops.example.com/c.json', 'must not carry userinfo'],
      ['https://ops.example.com/a/../c.json', 'must not contain "." or ".." path segments'],
    ] as const) {
      const refused = await runCli(['mcp', 'client-metadata', '--url', url]);
      expect(refused.code, url).toBe(2);
      expect(refused.stderr, url).toContain(why);
    }
  });

  it('an invalid oauth.client_metadata_url stops config loading with an error naming the key', async () => {
    const home = await homeWith({ srv: { url: 'https://mcp.example.com/mcp', auth: 'oauth', oauth: { client_metadata_url: 'https://ops.example.com/./c.json' } } });
    const list = await runCli(['mcp', 'list', '--home', home.root]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('mcp_servers.srv.oauth.client_metadata_url');
    expect(list.stderr).toContain('must not contain "." or ".." path segments');
  });

  it('check-metadata fetches the document over https (--ca) and prints every check', async () => {
    const good = (origin: string) => ({ client_id: `${origin}/good.json`, redirect_uris: loopbackRedirectUris() });
    const server = await httpsDocumentServer((url, res) => {
      if (url === '/good.json') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(good(server.origin)));
      else if (url === '/moved.json') res.writeHead(302, { location: '/good.json' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify({ client_id: 'someone-else', redirect_uris: loopbackRedirectUris().slice(0, 8) }));
    });
    const home = await homeWith({ srv: { url: 'https://mcp.example.com/mcp', auth: 'oauth', oauth: { client_metadata_url: `${server.origin}/good.json` } } });

    const ok = await runCli(['mcp', 'check-metadata', 'srv', '--ca', server.ca, '--home', home.root]);
    expect(ok.stdout).toContain('ok    answers 200 without a redirect');
    expect(ok.stdout).toContain('ok    declares all ten loopback redirect URIs');
    expect(ok.stdout).toContain('All checks passed.');
    expect(ok.code).toBe(0);

    const moved = await runCli(['mcp', 'check-metadata', 'srv', '--url', `${server.origin}/moved.json`, '--ca', server.ca, '--home', home.root]);
    expect(moved.stdout).toContain('FAIL  answers 200 without a redirect: HTTP 302 redirecting to /good.json');
    expect(moved.code).toBe(1);

    const bad = await runCli(['mcp', 'check-metadata', 'srv', '--url', `${server.origin}/bad.json`, '--ca', server.ca, '--home', home.root]);
    expect(bad.stdout).toContain('FAIL  Content-Type is application/json: got "text/plain"');
    expect(bad.stdout).toContain('FAIL  client_id equals the document URL: client_id is "someone-else"');
    expect(bad.stdout).toContain('FAIL  declares all ten loopback redirect URIs: missing http://127.0.0.1:27894/callback, http://localhost:27894/callback');
    expect(bad.stdout).toContain('3 of 10 checks failed');
    expect(bad.code).toBe(1);

    const untrusted = await runCli(['mcp', 'check-metadata', 'srv', '--home', home.root]);
    expect(untrusted.stdout).toMatch(/FAIL {2}answers 200 without a redirect: fetch failed: .*(SELF_SIGNED|self-signed)/i);
    expect(untrusted.code).toBe(1);
  });
});
