// Attach benchmark (issue #17): a headless gateway (`switchboard gateway`) takes signed webhooks at a
// fixed rate (default 500/s for 30 s) twice: once with no console, then with one console attached
// under tmux (140x45, Webhook deliveries pane). A probe preloaded into the console (`node --import`,
// no change to the product) measures its event-loop delay, its RSS, and the delay from the gateway's
// journal time of each event (`atMs`) to the moment the console parses it. Intake with the console
// attached is compared with the run without.
// Usage: npm run -s build && npx tsx scripts/bench-attach.ts [--rate 500] [--duration 30] [--smoke]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchArgs, benchConfig, benchRequests, binNodeFlags, cliPath as cli, peakRssMb, report, requireBuild, startGatewayProcess, waitFor, type BenchRow } from './bench-lib.js';

const args = benchArgs();
const smoke = args.smoke;
const rate = args.number('rate', 500, 100);
const duration = args.number('duration', 30, 3);
requireBuild();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-attach-'));
const logLevel = process.env.BENCH_LOG_LEVEL;

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
// Latencies in 1 ms buckets (0-999 ms, the last one for anything slower): no per-event allocation in the measured process.
let buckets = new Uint32Array(1000);
let count = 0;
let slowest = 0;
const parse = JSON.parse;
JSON.parse = function (text, reviver) {
  const value = parse.call(this, text, reviver);
  if (started && value && value.method === 'event' && value.params && typeof value.params.atMs === 'number') {
    const ms = Math.max(0, Date.now() - value.params.atMs);
    buckets[Math.min(999, ms)] += 1;
    count += 1;
    if (ms > slowest) slowest = ms;
  }
  return value;
};
const pct = (p) => {
  let seen = 0;
  for (let ms = 0; ms < buckets.length; ms += 1) {
    seen += buckets[ms];
    if (seen >= count * p / 100) return ms;
  }
  return 0;
};
// Peaks of the heap's parts, to tell live data from garbage not yet collected and from buffers.
const peak = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
const sampler = setInterval(() => {
  if (!started) return;
  const usage = process.memoryUsage();
  for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], usage[key]);
}, 100);
sampler.unref();
const timer = setInterval(() => {
  if (!started && fs.existsSync(start)) { started = true; histogram.reset(); buckets = new Uint32Array(1000); count = 0; slowest = 0; }
  fs.writeFileSync(out, JSON.stringify({ pid: process.pid, started, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6,
    events: count, latencyP50: pct(50), latencyP99: pct(99), latencyMax: slowest, rss: process.memoryUsage().rss, peak }));
}, 500);
timer.unref();
`);

const socket = `sb-attach-${process.pid}`;
const tmux = (...words: string[]) => execFileSync('tmux', ['-L', socket, ...words], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const readJson = <T>(file: string): T | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
};
const load = (url: string) => autocannon({ url: `${url}/webhooks/bench`, duration, connections: 10, overallRate: rate, requests: benchRequests() });

const gateway = await startGatewayProcess(benchConfig(logLevel ? { logging: { level: logLevel } } : {}));
try {
  const alone = await load(gateway.url);
  tmux('new-session', '-d', '-s', 'bench', '-x', '140', '-y', '45',
    `${process.execPath} ${binNodeFlags().join(' ')} --disable-warning=ExperimentalWarning ${process.env.BENCH_CONSOLE_ARGS ?? ''} --import ${probe} ${cli} --attach --home ${gateway.home} 2>${path.join(work, 'console-stderr.txt')}`);
  await waitFor(() => readJson<{ pid: number }>(statsFile), 'the console probe');
  tmux('send-keys', '-t', 'bench', '2');
  await waitFor(() => (/attached to pid/.test(tmux('capture-pane', '-p', '-t', 'bench')) ? true : undefined), 'the console to attach');
  fs.writeFileSync(`${statsFile}.start`, '');
  await waitFor(() => (readJson<{ started: boolean }>(statsFile)?.started ? true : undefined), 'the probe to start');
  const attached = await load(gateway.url);
  await sleep(1500); // the last events reach the console; two probe writes
  const stats = readJson<{ pid: number; p99: number; max: number; events: number; latencyP50: number; latencyP99: number; latencyMax: number; peak: Record<'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number> }>(statsFile)!;
  const rssMb = peakRssMb(stats.pid);
  const accepted = (result: autocannon.Result) => (result.statusCodeStats?.['202']?.count ?? 0) / duration;
  const intakeRatio = accepted(attached) / Math.max(1, accepted(alone));
  tmux('send-keys', '-t', 'bench', 'q');
  await sleep(300);
  try { tmux('send-keys', '-t', 'bench', 'y'); } catch { /* already gone */ }
  const rows: BenchRow[] = [
    { measure: `attach: intake with no console, 202/s at ${rate}/s, p99 ms`, value: `${accepted(alone).toFixed(0)}, ${alone.latency.p99}` },
    { measure: 'attach: intake with one console attached, 202/s, p99 ms', value: `${accepted(attached).toFixed(0)}, ${attached.latency.p99}` },
    { measure: 'attach: intake attached / alone', value: intakeRatio.toFixed(3), target: '>= 0.90', met: intakeRatio >= 0.9 },
    { measure: 'attach: console event-loop delay p99 / max (ms)', value: `${stats.p99.toFixed(1)} / ${stats.max.toFixed(1)}`, target: 'p99 < 50', met: stats.p99 < 50 },
    { measure: 'attach: console peak RSS (MB)', value: rssMb.toFixed(0), target: '< 150', met: rssMb < 150 },
    { measure: 'attach: console peak heap total / used / external / array buffers (MB, sampled every 100 ms)', value: (['heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const).map((key) => (stats.peak[key] / 1048576).toFixed(0)).join(' / ') },
    { measure: 'attach: events received by the console', value: String(stats.events) },
    { measure: 'attach: gateway -> console event latency p50 / p99 / max (ms)', value: `${stats.latencyP50} / ${stats.latencyP99} / ${stats.latencyMax}`, target: 'p99 < 100', met: stats.latencyP99 < 100 },
  ];
  report(`bench-attach: ${duration} s at ${rate} signed webhooks/s to a headless gateway, alone then with one attached console under tmux 140x45`, rows, args);
  if (!smoke) process.exitCode = rows.every((row) => row.met !== false) ? 0 : 1;
} finally {
  try { tmux('kill-server'); } catch { /* already gone */ }
  await gateway.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
