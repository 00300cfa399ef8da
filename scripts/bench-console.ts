// Console benchmark: the built console (`switchboard --home H`, gateway in-process) under tmux at
// 140x45 on the Webhook deliveries pane, while signed webhooks arrive at a fixed rate (default 500/s
// for 30 s). A preloaded probe (`node --import`, no change to the product) measures the console
// process's event-loop delay from the start of the load; peak RSS is VmHWM (Linux); then every 202 is
// looked up in state.db (no delivery record lost).
// Usage: npm run -s build && npx tsx scripts/bench-console.ts [--rate 500] [--duration 30] [--headless] [--smoke] [--json FILE]
import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import autocannon from 'autocannon';
import { benchArgs, binNodeFlags, report } from './bench-lib.js';

const args = benchArgs();
const arg = (name: string, fallback: number, smoke?: number) => args.number(name, fallback, smoke);
const rate = arg('rate', 500, 100);
/** `--headless`: the same load on `switchboard gateway` (no console), for comparison. */
const headless = process.argv.includes('--headless');
const duration = arg('duration', 30, 3);
const root = path.resolve(import.meta.dirname, '..');
const SECRET = 'bench-secret-0123456789abcdef';
const BODY = JSON.stringify({ action: 'opened', number: 42, repository: { full_name: 'octo/bench' }, pull_request: { title: 'Benchmark', user: { login: 'octocat' } } });
const SIGNATURE = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-console-'));
const home = path.join(work, 'home');
fs.mkdirSync(home, { mode: 0o700 });
fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({
  platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1_000_000_000, routes: { bench: {
    secret: SECRET, events: ['pull_request'], prompt: 'PR #{number} {pull_request.title} by {pull_request.user.login}', deliver: 'log' } } } } },
}), { mode: 0o600 });

// The probe: event-loop delay of the console process, reset when the load starts, written twice a second.
const statsFile = path.join(work, 'probe.json');
const probe = path.join(work, 'probe.mjs');
fs.writeFileSync(probe, `
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const out = ${JSON.stringify(statsFile)};
const start = out + '.start';
let started = false;
const timer = setInterval(() => {
  if (!started && fs.existsSync(start)) { started = true; histogram.reset(); }
  fs.writeFileSync(out, JSON.stringify({ pid: process.pid, started, p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6, memory: process.memoryUsage() }));
}, 500);
timer.unref();
`);

const socket = `switchboard-bench-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(check: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const readJson = <T>(file: string): T | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
};

try {
  tmux('new-session', '-d', '-s', 'bench', '-x', '140', '-y', '45',
    `${process.execPath} ${binNodeFlags().join(' ')} --disable-warning=ExperimentalWarning ${process.env.BENCH_NODE_ARGS ?? ''} --import ${probe} ${path.join(root, 'dist/cli/main.js')} ${headless ? 'gateway ' : ''}--home ${home} 2>${path.join(work, 'stderr.txt')}`);
  const url = await waitFor(() => readJson<{ webhookUrl?: string }>(path.join(home, 'gateway.lock'))?.webhookUrl, 'the console to bind its listener');
  const { pid } = await waitFor(() => readJson<{ pid: number }>(statsFile), 'the probe');
  if (!headless) {
    tmux('send-keys', '-t', 'bench', '2');
    await waitFor(() => (tmux('capture-pane', '-p', '-t', 'bench').includes('route bench') ? true : undefined), 'the Webhook deliveries pane');
  }

  fs.writeFileSync(`${statsFile}.start`, '');
  await waitFor(() => (readJson<{ started: boolean }>(statsFile)?.started ? true : undefined), 'the probe to start');
  const acceptedIds: string[] = [];
  const result = await autocannon({
    url: `${url}/webhooks/bench`, duration, connections: 20, overallRate: rate,
    requests: [{
      method: 'POST', body: BODY,
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': SIGNATURE },
      setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-github-delivery': randomUUID() } }),
      onResponse: (status: number, body: string) => {
        if (status === 202) acceptedIds.push((JSON.parse(body) as { delivery_id: string }).delivery_id);
      },
    }],
  });
  await sleep(1200); // two probe writes after the load
  const lag = readJson<{ p50: number; p99: number; max: number; memory: NodeJS.MemoryUsage }>(statsFile)!;
  const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
  const rssMb = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const screen = tmux('capture-pane', '-p', '-t', 'bench');

  const accepted = result.statusCodeStats?.['202']?.count ?? 0;
  const db = new DatabaseSync(path.join(home, 'state.db'), { readOnly: true });
  const storedIds = new Set((db.prepare('SELECT delivery_id AS id FROM webhook_deliveries WHERE route = ?').all('bench') as Array<{ id: string }>).map((row) => row.id));
  db.close();
  const lost = acceptedIds.filter((id) => !storedIds.has(id)).length;

  tmux('send-keys', '-t', 'bench', 'q');
  await sleep(300);
  try { tmux('send-keys', '-t', 'bench', 'y'); } catch { /* it quit at once: no run in flight */ }
  await waitFor(() => (fs.existsSync(path.join(home, 'gateway.lock')) ? undefined : true), 'the console to quit', 60_000).catch(() => undefined);

  const who = headless ? 'headless gateway' : 'console';
  report(`bench-console: ${duration} s at ${rate} signed webhooks/s, ${headless ? 'headless gateway (switchboard gateway) for comparison' : 'console under tmux 140x45 on the Webhook deliveries pane'}`, [
    { measure: `${who} at ${rate} webhooks/s: requests sent / 202 accepted`, value: `${result.requests.total} / ${accepted}` },
    { measure: `${who}: non-2xx, errors, timeouts`, value: `${result.non2xx}, ${result.errors}, ${result.timeouts}`, target: '0', met: result.non2xx + result.errors + result.timeouts === 0 },
    { measure: `${who}: HTTP latency p50 / p99 ms`, value: `${result.latency.p50} / ${result.latency.p99}` },
    { measure: `${who}: event-loop delay p50 / p99 / max ms`, value: `${lag.p50.toFixed(1)} / ${lag.p99.toFixed(1)} / ${lag.max.toFixed(1)}`, target: 'p99 < 50', met: lag.p99 < 50 },
    { measure: `${who}: peak RSS MB`, value: rssMb.toFixed(0), target: '< 250', met: rssMb < 250 },
    { measure: `${who}: after the load, RSS / heap used / heap total / external MB`, value: `${mb(lag.memory.rss)} / ${mb(lag.memory.heapUsed)} / ${mb(lag.memory.heapTotal)} / ${mb(lag.memory.external)}` },
    { measure: `${who}: 202s answered / their records missing from state.db`, value: `${acceptedIds.length} / ${lost}`, target: '0 missing', met: lost === 0 },
  ], args);
  if (headless) console.log('(headless: the RSS and lag targets are the console\'s; this run is the floor it builds on)');
  else console.log(`\nScreen at the end of the load (first lines):\n${screen.split('\n').slice(0, 6).join('\n')}`);
  if (!args.smoke) process.exitCode = lag.p99 < 50 && rssMb < 250 && lost === 0 ? 0 : 1;
} finally {
  try { tmux('kill-server'); } catch { /* already gone */ }
  fs.rmSync(work, { recursive: true, force: true });
}
