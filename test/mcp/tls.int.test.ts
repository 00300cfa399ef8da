import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import { call, FIXTURE_SERVER, makeManager, servers, startProcess } from '../helpers/mcp.js';

/** A private CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
function makePki(dir: string) {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  fs.writeFileSync(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Switchboard Test CA');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.cnf');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=switchboard-client');
  ssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '2');
  ssl('pkey', '-in', 'client.key', '-aes256', '-passout', 'pass:hunter2', '-out', 'client-enc.key');
  fs.writeFileSync(path.join(dir, 'client-both.pem'), fs.readFileSync(path.join(dir, 'client.pem'), 'utf8') + fs.readFileSync(path.join(dir, 'client.key'), 'utf8'));
  return (name: string) => path.join(dir, name);
}

let dir: string;
let file: (name: string) => string;
let plainUrl: string;
let mtlsUrl: string;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-tls-'));
  file = makePki(dir);
  const env = { TLS_KEY: file('server.key'), TLS_CERT: file('server.pem') };
  const plain = await startProcess([FIXTURE_SERVER, 'https', '0'], /listening (\d+)/, env);
  const mtls = await startProcess([FIXTURE_SERVER, 'https', '0'], /listening (\d+)/, { ...env, TLS_CLIENT_CA: file('ca.pem') });
  stops.push(plain.stop, mtls.stop);
  plainUrl = `https://127.0.0.1:${plain.match[1]}/mcp`;
  mtlsUrl = `https://127.0.0.1:${mtls.match[1]}/mcp`;
}, 60_000);
afterAll(async () => {
  for (const stop of stops) await stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function connect(entries: Record<string, McpServerConfig>) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-tls-home-'));
  const made = makeManager(home);
  await made.manager.start(servers(entries), { wait: true });
  const views = Object.fromEntries(made.manager.list().map((v) => [v.name, v]));
  return { ...made, views, done: async () => {
    await made.manager.stop();
    fs.rmSync(home, { recursive: true, force: true });
  } };
}

describe('TLS and client certificates', () => {
  it('ssl_verify: system CAs reject the private CA, a CA bundle path accepts it, false skips verification', async () => {
    const c = await connect({
      system: { url: plainUrl, connect_timeout: 10 },
      bundle: { url: plainUrl, ssl_verify: file('ca.pem') },
      insecure: { url: plainUrl, ssl_verify: false },
    });
    try {
      expect(c.views.system!.status).toBe('failed');
      expect(c.views.bundle!.status).toBe('ready');
      expect(c.views.insecure!.status).toBe('ready');
      expect((await call(c.registry, 'mcp__bundle__echo', { text: 'tls' })).text).toBe('echo: tls');
    } finally {
      await c.done();
    }
  });

  it('client_cert in every form against a server that requires one; missing files name server and path', async () => {
    const ca = file('ca.pem');
    const c = await connect({
      none: { url: mtlsUrl, ssl_verify: ca, connect_timeout: 10 },
      one_pem: { url: mtlsUrl, ssl_verify: ca, client_cert: file('client-both.pem') },
      with_key: { url: mtlsUrl, ssl_verify: ca, client_cert: file('client.pem'), client_key: file('client.key') },
      pair: { url: mtlsUrl, ssl_verify: ca, client_cert: [file('client.pem'), file('client.key')] },
      encrypted: { url: mtlsUrl, ssl_verify: ca, client_cert: [file('client.pem'), file('client-enc.key'), 'hunter2'] },
      missing_cert: { url: mtlsUrl, ssl_verify: ca, client_cert: file('nope.pem') },
      missing_key: { url: mtlsUrl, ssl_verify: ca, client_cert: file('client.pem'), client_key: file('nope.key') },
    });
    try {
      expect(c.views.none!.status).toBe('failed');
      for (const name of ['one_pem', 'with_key', 'pair', 'encrypted']) expect(`${name}: ${c.views[name]!.status} ${c.views[name]!.reason ?? ''}`).toBe(`${name}: ready `);
      expect(c.views.missing_cert!.reason).toBe(`server missing_cert: client_cert file ${file('nope.pem')} does not exist; fix the path in mcp_servers.missing_cert.client_cert`);
      expect(c.views.missing_key!.reason).toBe(`server missing_key: client_key file ${file('nope.key')} does not exist; fix the path in mcp_servers.missing_key.client_key`);
      expect((await call(c.registry, 'mcp__encrypted__echo', { text: 'mtls' })).text).toBe('echo: mtls');
    } finally {
      await c.done();
    }
  });
});

describe('SSE over TLS', () => {
  it('the SSE GET stream and the POSTs both go through the configured CA', async () => {
    const { EVERYTHING, freePort } = await import('../helpers/mcp.js');
    const https = await import('node:https');
    const http = await import('node:http');
    const port = await freePort();
    const upstream = await startProcess([EVERYTHING, 'sse'], /listening|running|started/i, { PORT: String(port) });
    stops.push(upstream.stop);
    // A TLS-terminating proxy in front of server-everything's SSE endpoint.
    const proxy = https.createServer({ key: fs.readFileSync(file('server.key')), cert: fs.readFileSync(file('server.pem')) }, (req, res) => {
      const forward = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: { ...req.headers, host: `127.0.0.1:${port}` } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    stops.push(() => new Promise((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()); }));
    const url = `https://127.0.0.1:${(proxy.address() as { port: number }).port}/sse`;
    const c = await connect({
      trusted: { url, transport: 'sse', ssl_verify: file('ca.pem') },
      untrusted_ca: { url, transport: 'sse', connect_timeout: 10 },
    });
    try {
      expect(c.views.trusted).toMatchObject({ status: 'ready', transport: 'sse' });
      expect(c.views.untrusted_ca!.status).toBe('failed');
      expect((await call(c.registry, 'mcp__trusted__echo', { message: 'sse over tls' })).text).toContain('sse over tls');
    } finally {
      await c.done();
    }
  });
});
