// Attach benchmark (issue #17): a headless gateway (`switchboard gateway`) takes signed webhooks at a
// fixed rate (default 500/s for 30 s) twice: once with no console, then with one console attached
// under tmux (140x45, Webhook deliveries pane). A probe preloaded into the console (`node --import`,
// no change to the product) measures its event-loop delay, its RSS, and the delay from the gateway's
// journal time of each event (`atMs`) to the moment the console parses it. Intake with the console
// attached is compared with the run without.
// Usage: npm run -s build && npx tsx scripts/bench-attach.ts [--rate 500] [--duration 30] [--smoke]
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const smoke = process.argv.includes('--smoke');
const rate = arg('rate', smoke ? 100 : 500);
const duration = arg('duration', smoke ? 3 : 30);
const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli/main.js');
const SECRET = 'bench-secret-0123456789abcdef';
const BODY = JSON.stringify({ action: 'opened', number: 42, repository: { full_name: 'octo/bench' }, pull_request: { title: 'Benchmark', user: { login: 'octocat' } } });
const SIGNATURE = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-attach-'));
const home = path.join(work, 'home');
fs.mkdirSync(home, { mode: 0o700 });
fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({
  platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1_000_000_000, routes: { bench: {
    secret: SECRET, events: ['pull_request'], prompt: 'PR #{number} {pull_request.title} by {pull_request.user.login}', deliver: 'log' } } } } },
}), { mode: 0o600 });

// The probe: event-loop delay and event latency in the console process, reset when the load starts.
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
let latencies = [];
const parse = JSON.parse;
JSON.parse = function (text, reviver) {
  const value = parse.call(this, text, reviver);
  if (started && value && value.method === 'event' && value.params && typeof value.params.atMs === 'number') latencies.push(Date.now() - value.params.atMs);
  return value;
};
const pct = (sorted, p) => sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))];
const timer = setInterval(() => {
  if (!started && fs.existsSync(start)) { started = true; histogram.reset(); latencies = []; }
  const sorted = latencies.slice().sort((a, b) => a - b);
  fs.writeFileSync(out, JSON.stringify({ pid: process.pid, started, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6,
    events: sorted.length, latencyP50: pct(sorted, 50), latencyP99: pct(sorted, 99), latencyMax: sorted.at(-1) ?? 0, rss: process.memoryUsage().rss }));
}, 500);
timer.unref();
`);

const socket = `sb-attach-${process.pid}`;
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

async function load(url: string) {
  return autocannon({
    url: `${url}/webhooks/bench`, duration, connections: 10, overallRate: rate,
    requests: [{
      method: 'POST', body: BODY,
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': SIGNATURE },
      setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-github-delivery': randomUUID() } }),
    }],
  });
}

const gateway = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cli, 'gateway', '--home', home], { stdio: ['ignore', 'ignore', 'pipe'] });
try {
  const url = await waitFor(() => readJson<{ webhookUrl?: string }>(path.join(home, 'gateway.lock'))?.webhookUrl, 'the gateway to bind its listener');
  await waitFor(() => (fs.existsSync(path.join(home, 'control.sock')) ? true : undefined), 'the control socket');
  const alone = await load(url);

  tmux('new-session', '-d', '-s', 'bench', '-x', '140', '-y', '45',
    `${process.execPath} --disable-warning=ExperimentalWarning --import ${probe} ${cli} --attach --home ${home} 2>${path.join(work, 'console-stderr.txt')}`);
  await waitFor(() => readJson<{ pid: number }>(statsFile), 'the console probe');
  tmux('send-keys', '-t', 'bench', '2');
  await waitFor(() => (/attached/i.test(tmux('capture-pane', '-p', '-t', 'bench')) ? true : undefined), 'the console to attach');
  fs.writeFileSync(`${statsFile}.start`, '');
  await waitFor(() => (readJson<{ started: boolean }>(statsFile)?.started ? true : undefined), 'the probe to start');
  const attached = await load(url);
  await sleep(1500); // the last events reach the console; two probe writes
  const stats = readJson<{ pid: number; p99: number; max: number; events: number; latencyP50: number; latencyP99: number; latencyMax: number }>(statsFile)!;
  const rssMb = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${stats.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const rate2xx = (result: autocannon.Result) => (result.statusCodeStats?.['202']?.count ?? 0) / duration;
  const intakeRatio = rate2xx(attached) / Math.max(1, rate2xx(alone));
  tmux('send-keys', '-t', 'bench', 'q');
  await sleep(300);
  try { tmux('send-keys', '-t', 'bench', 'y'); } catch { /* already gone */ }

  const rows: Array<[string, string, string, boolean | null]> = [
    ['intake, no console: 202/s, p99 ms', `${rate2xx(alone).toFixed(0)}, ${alone.latency.p99}`, '', null],
    ['intake, console attached: 202/s, p99 ms', `${rate2xx(attached).toFixed(0)}, ${attached.latency.p99}`, '', null],
    ['intake attached / alone', intakeRatio.toFixed(3), '>= 0.90', intakeRatio >= 0.9],
    ['console event-loop delay p99 / max (ms)', `${stats.p99.toFixed(1)} / ${stats.max.toFixed(1)}`, 'p99 < 50', stats.p99 < 50],
    ['console peak RSS (MB)', rssMb.toFixed(0), '< 150', rssMb < 150],
    ['events received by the console', String(stats.events), '', null],
    ['gateway -> console event latency p50 / p99 / max (ms)', `${stats.latencyP50} / ${stats.latencyP99} / ${stats.latencyMax}`, 'p99 < 100', stats.latencyP99 < 100],
  ];
  console.log(`bench-attach: ${duration} s at ${rate} signed webhooks/s to a headless gateway, alone then with one attached console under tmux 140x45 (${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)})${smoke ? ' [smoke: targets not checked]' : ''}`);
  console.log('| measure | value | target | met |\n| --- | --- | --- | --- |');
  for (const [name, value, target, met] of rows) console.log(`| ${name} | ${value} | ${target} | ${met === null ? '' : met ? 'yes' : 'no'} |`);
  if (!smoke) process.exitCode = rows.every(([, , , met]) => met !== false) ? 0 : 1;
} finally {
  try { tmux('kill-server'); } catch { /* already gone */ }
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  fs.rmSync(work, { recursive: true, force: true });
}
