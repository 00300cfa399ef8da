import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/temp-home.js';
import { call, EVERYTHING, FIXTURE_SERVER, freePort, makeManager, NODE, servers, startProcess } from '../helpers/mcp.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});
function started(home: string) {
  const made = makeManager(home);
  cleanups.push(() => made.manager.stop());
  return made;
}
async function everything(mode: 'streamableHttp' | 'sse') {
  const port = await freePort();
  const proc = await startProcess([EVERYTHING, mode], /listening|running|started/i, { PORT: String(port) });
  cleanups.push(proc.stop);
  return port;
}
async function fixtureHttp(legacy: 'stateless' | 'reject') {
  const proc = await startProcess([FIXTURE_SERVER, 'http', '0', '--legacy', legacy], /listening (\d+)/);
  cleanups.push(proc.stop);
  return `http://127.0.0.1:${proc.match[1]}/mcp`;
}

describe('remote servers', () => {
  it('a call to an HTTP server that went away fails, and the server shows degraded at once (not at the next keepalive)', async () => {
    const home = tempHome();
    const proc = await startProcess([FIXTURE_SERVER, 'http', '0', '--legacy', 'stateless'], /listening (\d+)/);
    cleanups.push(proc.stop);
    const made = makeManager(home.root, { retry: true });
    cleanups.push(() => made.manager.stop());
    await made.manager.start(servers({ gone: { url: `http://127.0.0.1:${proc.match[1]}/mcp` } }), { wait: true });
    expect((await call(made.registry, 'mcp__gone__echo', { text: 'here' })).text).toContain('here');
    await proc.stop();
    const failed = await call(made.registry, 'mcp__gone__echo', { text: 'gone' }).then((output) => output.text, (error: unknown) => (error as Error).message);
    expect(failed).toMatch(/ECONNREFUSED|fetch failed/);
    const [view] = made.manager.list();
    expect(['degraded', 'reconnecting']).toContain(view!.status);
    expect(view!.reason).toMatch(/^server gone: tool echo failed: .*ECONNREFUSED/);
  });

  it('server-everything over Streamable HTTP and SSE', async () => {
    const home = tempHome();
    const httpPort = await everything('streamableHttp');
    const ssePort = await everything('sse');
    const { manager, registry } = started(home.root);
    await manager.start(servers({
      web: { url: `http://127.0.0.1:${httpPort}/mcp`, headers: { 'X-Test': 'yes' } },
      old: { url: `http://127.0.0.1:${ssePort}/sse`, transport: 'sse' },
    }), { wait: true });
    const views = Object.fromEntries(manager.list().map((v) => [v.name, v]));
    expect(views.web).toMatchObject({ status: 'ready', transport: 'streamable-http', era: 'legacy' });
    expect(views.old).toMatchObject({ status: 'ready', transport: 'sse', era: 'legacy' });
    expect((await call(registry, 'mcp__web__echo', { message: 'over http' })).text).toContain('over http');
    expect((await call(registry, 'mcp__old__echo', { message: 'over sse' })).text).toContain('over sse');
    expect(registry.get('mcp__old__read_resource')).toBeDefined();
  });

  it('protocol eras against a dual-era and a modern-only server', async () => {
    const home = tempHome();
    const dual = await fixtureHttp('stateless');
    const modern = await fixtureHttp('reject');
    const { manager, registry } = started(home.root);
    await manager.start(servers({
      dual_auto: { url: dual },
      dual_stateless: { url: dual, protocol: 'stateless' },
      dual_legacy: { url: dual, protocol: 'legacy' },
      modern_auto: { url: modern },
      modern_stateless: { url: modern, protocol: 'stateless' },
      modern_legacy: { url: modern, protocol: 'legacy' },
      modern_odd: { url: modern, protocol: 'newest' },
      stdio_modern: { command: NODE, args: [FIXTURE_SERVER, 'stdio', '--legacy', 'reject'] },
      stdio_stateless: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], protocol: 'stateless' },
    }), { wait: true });
    const era = Object.fromEntries(manager.list().map((v) => [v.name, `${v.status}/${v.era ?? '-'}`]));
    expect(era).toEqual({
      dual_auto: 'ready/legacy',
      dual_stateless: 'ready/modern',
      dual_legacy: 'ready/legacy',
      modern_auto: 'ready/modern',
      modern_stateless: 'ready/modern',
      modern_legacy: 'failed/-',
      modern_odd: 'ready/modern',
      stdio_modern: 'ready/modern',
      stdio_stateless: 'ready/modern',
    });
    expect(manager.list().find((v) => v.name === 'modern_legacy')!.reason).toMatch(/^server modern_legacy: connect failed: .*-32022.*protocol to auto or stateless$/s);
    expect((await call(registry, 'mcp__modern_auto__echo', { text: 'modern' })).text).toBe('echo: modern');
    expect((await call(registry, 'mcp__stdio_modern__write_note', { note: 'm' })).structured).toEqual({ written: 'm' });
  });

  it('preflight fails fast on an HTML page with the exact message; skip_preflight bypasses it', async () => {
    const home = tempHome();
    const page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => page.close(() => r())));
    const url = `http://127.0.0.1:${(page.address() as { port: number }).port}/mcp`;
    const { manager } = started(home.root);
    await manager.start(servers({ html: { url }, skipped: { url, skip_preflight: true, connect_timeout: 5 } }), { wait: true });
    const views = Object.fromEntries(manager.list().map((v) => [v.name, v]));
    expect(views.html).toMatchObject({ status: 'failed', reason: `server html: ${url} answered Content-Type text/html; charset=utf-8, not an MCP endpoint (set skip_preflight: true if this is wrong)` });
    expect(views.skipped!.status).toBe('failed');
    expect(views.skipped!.reason).not.toMatch(/not an MCP endpoint/);
  });

  it('preflight: HEAD 405 -> GET; headers on every request; an HTML GET with a real MCP POST behind it passes after the initialize probe', async () => {
    const home = tempHome();
    const target = new URL(await fixtureHttp('stateless'));
    const seen: string[] = [];
    const apiKeys = new Set<string | undefined>();
    const front = http.createServer((req, res) => {
      seen.push(req.method!);
      apiKeys.add(req.headers['x-api-key'] as string | undefined);
      if (req.method === 'HEAD') {
        res.writeHead(405);
        return res.end();
      }
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>docs page</html>');
      }
      const forward = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => { front.closeAllConnections(); front.close(() => r()); }));
    const { manager, registry } = started(home.root);
    await manager.start(servers({ docs: { url: `http://127.0.0.1:${(front.address() as { port: number }).port}/mcp`, headers: { 'X-Api-Key': 'k1' } } }), { wait: true });
    expect(manager.list()[0]).toMatchObject({ status: 'ready' });
    expect(seen.slice(0, 3)).toEqual(['HEAD', 'GET', 'POST']);
    expect((await call(registry, 'mcp__docs__echo', { text: 'behind a docs page' })).text).toBe('echo: behind a docs page');
    expect([...apiKeys]).toEqual(['k1']); // every request, preflight included, carried the configured header
  });
});
