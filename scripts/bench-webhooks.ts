// Webhook intake benchmark: the real listener (built gateway core from dist/, dry-run model, `log`
// target, rate limit raised) against a bare Fastify server that only verifies the HMAC and answers
// 202 (the floor). Each server runs in its own plain Node child process (no TypeScript loader), so
// its peak RSS (VmHWM, Linux) is its own.
// Usage: npm run -s build && npx tsx scripts/bench-webhooks.ts [--duration 10] [--connections 50]
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

const root = new URL('../', import.meta.url);
const SECRET = 'bench-secret-0123456789abcdef';
const BODY = JSON.stringify({ action: 'opened', number: 42, repository: { full_name: 'octo/bench' }, pull_request: { title: 'Benchmark', user: { login: 'octocat' } } });
const SIGNATURE = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;

/** The real gateway core, as `switchboard gateway` builds it, on 127.0.0.1 with an ephemeral port. */
const gatewayChild = `
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const dist = ${JSON.stringify(new URL('dist/', root).href)};
const { homeLayout } = await import(dist + 'config/home.js');
const { defaultConfig } = await import(dist + 'config/default-config.js');
const { resolveConfig } = await import(dist + 'config/load.js');
const { createGateway } = await import(dist + 'gateway/gateway.js');
const { createLogger } = await import(dist + 'infra/logger.js');
const { openStore } = await import(dist + 'store/database.js');
const home = homeLayout(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-')));
const file = defaultConfig();
file.platforms.webhook.extra = { host: '127.0.0.1', port: 0, rate_limit: 1000000000, routes: { bench: {
  secret: ${JSON.stringify(SECRET)}, events: ['pull_request'], prompt: 'PR #{number} {pull_request.title} by {pull_request.user.login}', deliver: 'log' } } };
const config = resolveConfig(file, home, {});
const { logger } = createLogger({ file: home.gatewayLog, level: 'info', mode: 'quiet' });
const gateway = createGateway({ config, store: openStore(home.stateDb), logger });
await gateway.start();
process.on('message', () => process.send(gateway.webhooks.counts()));
process.stdout.write('HOME ' + home.root + '\\n');
process.stdout.write('URL ' + gateway.snapshot().webhook.url + '/webhooks/bench\\n');
`;

/** The floor: raw body, HMAC check with timingSafeEqual, 202. Nothing else. */
const floorChild = `
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  scope.post('/webhooks/:name', async (request, reply) => {
    const given = Buffer.from(String(request.headers['x-hub-signature-256'] ?? ''));
    const expected = Buffer.from('sha256=' + createHmac('sha256', ${JSON.stringify(SECRET)}).update(request.body).digest('hex'));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send({ error: 'Invalid signature' });
    return reply.code(202).send({ status: 'accepted' });
  });
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.on('message', () => process.send({}));
process.stdout.write('URL http://127.0.0.1:' + app.server.address().port + '/webhooks/bench\\n');
`;

/** Peak resident set of a child process (Linux VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

function startServer(code: string): Promise<{ child: ChildProcess; url: string; home?: string }> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', code], { cwd: root, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const url = /^URL (\S+)$/m.exec(out)?.[1];
      if (url) resolve({ child, url, home: /^HOME (\S+)$/m.exec(out)?.[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
}

function backlog(child: ChildProcess): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Record<string, number>));
    child.send('counts');
  });
}

/** Waits (at most 60 s) until no accepted delivery is queued or running. */
async function drained(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const counts = await backlog(child);
    if ((counts.queued ?? 0) + (counts.running ?? 0) === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function load(url: string, options: { duration: number; connections: number; overallRate?: number }): Promise<autocannon.Result> {
  return autocannon({
    url,
    duration: options.duration,
    connections: options.connections,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [{
      method: 'POST',
      body: BODY,
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': SIGNATURE },
      // A fresh delivery id per request, so every request is a new accepted delivery (no duplicates).
      setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-github-delivery': randomUUID() } }),
    }],
  });
}

interface Row { server: string; reqPerSec: number; p50: number; p99: number; fixedP50: number; fixedP99: number; fixedAccepted: number; rssMb: number; queuedAfterFixed: number; queued: number }

async function measure(name: string, code: string, duration: number, connections: number): Promise<Row> {
  const { child, url, home } = await startServer(code);
  try {
    await load(url, { duration: 2, connections: 10 }); // warm-up
    // The fixed-rate phase measures the steady state, where runs keep pace with arrivals: the
    // warm-up's few thousand runs are finished first, or the intake's p99 would be that of a queue
    // catching up at full CPU. The full-load phase then measures intake under a growing backlog.
    await drained(child);
    const fixed = await load(url, { duration, connections: 10, overallRate: 500 });
    const afterFixed = await backlog(child);
    const full = await load(url, { duration, connections });
    const counts = await backlog(child);
    return {
      server: name,
      reqPerSec: (full.statusCodeStats?.['202']?.count ?? 0) / duration,
      p50: full.latency.p50,
      p99: full.latency.p99,
      fixedP50: fixed.latency.p50,
      fixedP99: fixed.latency.p99,
      fixedAccepted: (fixed.statusCodeStats?.['202']?.count ?? 0) / duration,
      rssMb: peakRssMb(child.pid!),
      queuedAfterFixed: (afterFixed.queued ?? 0) + (afterFixed.running ?? 0),
      queued: (counts.queued ?? 0) + (counts.running ?? 0),
    };
  } finally {
    child.kill('SIGKILL');
    if (home) fs.rmSync(home, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
if (!fs.existsSync(new URL('dist/gateway/gateway.js', root))) throw new Error('dist/ is missing: run npm run -s build first');
const duration = option('duration', 10);
const connections = option('connections', 50);
console.log(`Webhook intake benchmark: ${duration} s at 500 req/s (10 connections), then ${duration} s at full load (${connections} connections); ${os.cpus().length} CPUs, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)}`);
const floor = await measure('bare Fastify + HMAC (floor)', floorChild, duration, connections);
const gateway = await measure('switchboard listener', gatewayChild, duration, connections);
console.table([gateway, floor].map((row) => ({
  server: row.server,
  'accepted req/s': Math.round(row.reqPerSec),
  'p50 ms': row.p50,
  'p99 ms': row.p99,
  '@500/s accepted': Math.round(row.fixedAccepted),
  '@500/s p50 ms': row.fixedP50,
  '@500/s p99 ms': row.fixedP99,
  'peak RSS MB': Math.round(row.rssMb),
})));
console.log(`Listener/floor: ${((gateway.reqPerSec / floor.reqPerSec) * 100).toFixed(1)}% of the floor's accepted req/s (target >= 50%)`);
console.log(`Listener at 500 req/s: p99 ${gateway.fixedP99} ms (target < 10 ms); peak RSS ${Math.round(gateway.rssMb)} MB (target < 150 MB)`);
console.log(`Runs not finished when the 500 req/s run ended: ${gateway.queuedAfterFixed}; when the full-load run ended: ${gateway.queued} (the 202 never waits for a run)`);
