// Webhook intake benchmark. The listener is the built `switchboard gateway` (headless, as operators
// run it: event journal, read model, readable stderr lines, dry-run model, `log` target, rate limit
// raised); the floor is a bare Fastify server in its own plain Node process that only verifies the
// HMAC and answers 202. Phases:
//  1. intake rounds, alternating floor, listener, floor, ... (a fresh floor and a fresh listener each
//     round, both warmed up alike, so no round inherits another's backlog or JIT): accepted req/s at full load over `--connections`, and the
//     listener/floor ratio per round; reported as the median with min and max;
//  2. with `--load N`: the same rounds again while N worker threads of this process spin (a busy machine);
//  3. 500 req/s for `--fixed-duration` s, paced (scripts/paced-load.ts: one request every 2 ms, latency
//     from when each was due, over up to 10 connections): the listener's p50/p99 latency;
//  4. memory: a listener with `--mcp-servers` stdio MCP servers (test/fixtures/mcp/fixture-server.mjs)
//     connected: RSS once idle, then its peak (VmHWM) during 500 req/s (autocannon's rate limit: a
//     burst per connection at each second, harder on memory than the same rate paced).
// Usage: npm run -s build && npx tsx scripts/bench-webhooks.ts [--rounds 5] [--duration 5] [--connections 50]
//   [--load 2] [--fixed-duration 10] [--mcp-servers 10] [--cpu-prof DIR] [--intake-only] [--memory-only]
//   [--latency-only] [--fixed-rounds 1] [--baseline DIR] [--smaps] [--smoke] [--json FILE]
// `--intake-only`: phases 1 and 2 only (profiling, or comparing changes). `--cpu-prof DIR`: the floor
// and the listener both write a profile per round (both carry the profiler's cost). `--memory-only`
// / `--latency-only`: phase 4 / phase 3 only. Phases 3 and 4 run `--fixed-rounds N` times; with
// `--baseline DIR` (another checkout's built dist/) each round runs that build, then this one. `--smaps`: prints where the peak's RSS lives (stderr).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { startFloor, stopFloor } from './bench-floor.js';
import { pacedLoad, percentile } from './paced-load.js';
import {
  benchArgs, benchConfig, benchPacedRequest, cliPath, benchRequests, formatSpread, loadAverage, peakRssMb, report, repoRoot, requireBuild, rssMb, spread, startGatewayProcess, waitFor, type BenchRow,
} from './bench-lib.js';

const args = benchArgs();
const rounds = args.number('rounds', 5, 1);
const duration = args.number('duration', 5, 1);
const connections = args.number('connections', 50, 10);
const busyWorkers = args.number('load', 0);
const fixedDuration = args.number('fixed-duration', 10, 1);
const mcpServers = args.number('mcp-servers', 10, 2);
const rate = args.number('rate', 500);
const profileDir = args.text('cpu-prof');
const intakeOnly = args.flag('intake-only');
const memoryOnly = args.flag('memory-only');
const latencyOnly = args.flag('latency-only');
const fixedRounds = args.number('fixed-rounds', 1, 1);
const baselineDir = args.text('baseline');
const showSmaps = args.flag('smaps');
requireBuild();

const load = (url: string, options: { duration: number; connections: number; overallRate?: number }) =>
  autocannon({ url: `${url}/webhooks/bench`, duration: options.duration, connections: options.connections, ...(options.overallRate ? { overallRate: options.overallRate } : {}), requests: benchRequests() });

/** CPU time (user + system, every thread) a process has used so far, in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/**
 * A measured load: accepted req/s and the server's CPU µs per accepted request. The CPU cost moves
 * far less with the machine's load than req/s does (a busy machine takes CPU time away, it does not
 * make each request cost more), so it shows what a change saved even when the ratio is noisy.
 */
async function measured(url: string, pid: number): Promise<{ rate: number; cpuUs: number }> {
  const before = cpuMs(pid);
  const result = await load(url, { duration, connections });
  const spent = cpuMs(pid) - before;
  const count = result.statusCodeStats?.['202']?.count ?? 0;
  return { rate: count / duration, cpuUs: count > 0 ? (spent * 1000) / count : 0 };
}

/** `count` threads that spin until terminated: a machine busy with other work. */
function busy(count: number): Worker[] {
  return Array.from({ length: count }, () => new Worker('for (;;) {}', { eval: true }));
}

/** Alternating rounds: a fresh floor then a fresh listener, each warmed up alike; accepted req/s of each and their ratio. */
async function intakeRounds(label: string): Promise<BenchRow[]> {
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const floorRates: number[] = [];
  const listenerRates: number[] = [];
  const floorCpu: number[] = [];
  const listenerCpu: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const floor = await startFloor(nodeArgs);
    try {
      await load(floor.url, { duration: 1, connections: 10 }); // warm-up
      const floorRound = await measured(floor.url, floor.child.pid!);
      floorRates.push(floorRound.rate);
      floorCpu.push(floorRound.cpuUs);
    } finally {
      await stopFloor(floor, !!profileDir);
    }
    const listener = await startGatewayProcess(benchConfig(), nodeArgs);
    try {
      await load(listener.url, { duration: 1, connections: 10 });
      const listenerRound = await measured(listener.url, listener.child.pid!);
      listenerRates.push(listenerRound.rate);
      listenerCpu.push(listenerRound.cpuUs);
    } finally {
      await listener.stop({ kill: !profileDir }); // its backlog is nobody's concern; a profile needs a clean exit
    }
    process.stderr.write(`${label} round ${round + 1}: floor ${floorRates.at(-1)!.toFixed(0)}, listener ${listenerRates.at(-1)!.toFixed(0)} req/s; CPU per request floor ${floorCpu.at(-1)!.toFixed(0)}, listener ${listenerCpu.at(-1)!.toFixed(0)} µs; load average ${loadAverage()}\n`);
  }
  const ratios = listenerRates.map((rate, index) => (rate / floorRates[index]!) * 100);
  return [
    { measure: `intake${label}: listener / floor accepted req/s, % (${connections} connections, ${duration} s rounds)`, value: formatSpread(ratios, 1, '%'), target: '>= 70%', met: spread(ratios).median >= 70 },
    { measure: `intake${label}: floor accepted req/s`, value: formatSpread(floorRates) },
    { measure: `intake${label}: listener accepted req/s`, value: formatSpread(listenerRates) },
    { measure: `intake${label}: CPU µs per accepted request, floor`, value: formatSpread(floorCpu) },
    { measure: `intake${label}: CPU µs per accepted request, listener (all threads)`, value: formatSpread(listenerCpu) },
    { measure: `intake${label}: floor / listener CPU per request, %`, value: formatSpread(listenerCpu.map((cpu, index) => (floorCpu[index]! / cpu) * 100), 1, '%') },
  ];
}

/** A listener at `rate` req/s after a warm-up whose runs are finished first: the steady state's latency. */
async function fixedRateRound(cli = cliPath): Promise<{ rate: number; p50: number; p99: number }> {
  const listener = await startGatewayProcess(benchConfig(), [], cli);
  try {
    await load(listener.url, { duration: 1, connections: 10 });
    await drained(listener.call);
    const result = await pacedLoad({ urls: [listener.url], rate, durationS: fixedDuration, connections: 10, request: benchPacedRequest });
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return { rate: (result.statuses.get(202) ?? 0) / fixedDuration, p50: round(percentile(result.latenciesMs, 50)), p99: round(percentile(result.latenciesMs, 99)) };
  } finally {
    await listener.stop({ kill: true });
  }
}

/** The builds phases 3 and 4 compare: the `--baseline` one first, then this checkout's. */
const builds = baselineDir ? [{ label: 'before', cli: path.resolve(baselineDir, 'dist/cli/main.js') }, { label: '', cli: cliPath }] : [{ label: '', cli: cliPath }];
const named = (label: string) => (label ? ` (${label})` : '');

/** Phase 3, `fixedRounds` times, alternating builds. */
async function fixedRate(): Promise<BenchRow[]> {
  const figures = builds.map(() => ({ rate: [] as number[], p50: [] as number[], p99: [] as number[] }));
  for (let round = 0; round < fixedRounds; round++) {
    for (const [index, { label, cli }] of builds.entries()) {
      const result = await fixedRateRound(cli);
      figures[index]!.rate.push(result.rate);
      figures[index]!.p50.push(result.p50);
      figures[index]!.p99.push(result.p99);
      process.stderr.write(`latency${named(label)} round ${round + 1}: ${result.rate.toFixed(0)} req/s, p50 ${result.p50} / p99 ${result.p99} ms; load average ${loadAverage()}\n`);
    }
  }
  return builds.map(({ label }, index) => {
    const { rate: rates, p50, p99 } = figures[index]!;
    const value = fixedRounds === 1 ? `${rates[0]!.toFixed(0)}, ${p50[0]} / ${p99[0]}` : `${spread(rates).median.toFixed(0)}, ${spread(p50).median} / ${formatSpread(p99)}`;
    return { measure: `listener${named(label)} at ${rate} req/s for ${fixedDuration} s, paced (latency from when each request was due): accepted req/s, p50 / p99 latency ms`, value };
  });
}

/** A listener with stdio MCP servers connected: RSS once idle, then its peak at `rate` req/s. */
async function memoryRound(cli = cliPath): Promise<{ idleMb: number; peakMb: number; sampledMb: number }> {
  const server = path.join(repoRoot, 'test/fixtures/mcp/fixture-server.mjs');
  const servers = Object.fromEntries(Array.from({ length: mcpServers }, (_, index) => [`fixture${index}`, { command: process.execPath, args: [server, 'stdio'] }]));
  const listener = await startGatewayProcess(benchConfig({ mcp_servers: servers }), [], cli);
  try {
    await waitFor(async () => {
      const { servers: views } = (await listener.call('mcp.servers')) as { servers: Array<{ status: string }> };
      return views.length === mcpServers && views.every((view) => view.status === 'ready') ? true : undefined;
    }, `${mcpServers} MCP servers to be ready`, 60_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // settle: startup garbage, first timers
    const idleMb = rssMb(listener.child.pid!);
    let sampledMb = idleMb;
    const sampler = setInterval(() => (sampledMb = Math.max(sampledMb, rssMb(listener.child.pid!))), 100);
    try {
      await load(listener.url, { duration: fixedDuration, connections: 10, overallRate: rate });
    } finally {
      clearInterval(sampler);
    }
    const peakMb = peakRssMb(listener.child.pid!);
    if (showSmaps) process.stderr.write(`${cli}: after the load\n${smapsSummary(listener.child.pid!)}\n`);
    return { idleMb, peakMb, sampledMb };
  } finally {
    await listener.stop({ kill: true });
  }
}

/** Phase 4, `fixedRounds` times, alternating builds: idle and peak RSS. */
async function memoryWithMcp(): Promise<BenchRow[]> {
  const figures = builds.map(() => ({ idle: [] as number[], peak: [] as number[], sampled: [] as number[] }));
  for (let round = 0; round < fixedRounds; round++) {
    for (const [index, { label, cli }] of builds.entries()) {
      const result = await memoryRound(cli);
      figures[index]!.idle.push(result.idleMb);
      figures[index]!.peak.push(result.peakMb);
      figures[index]!.sampled.push(result.sampledMb);
      process.stderr.write(`memory${named(label)} round ${round + 1}: idle ${result.idleMb.toFixed(0)} MB, peak ${result.peakMb.toFixed(0)} MB; load average ${loadAverage()}\n`);
    }
  }
  return builds.flatMap(({ label }, index) => {
    const { idle, peak, sampled } = figures[index]!;
    const name = named(label);
    return [
      { measure: `gateway RSS idle${name}, ${mcpServers} stdio MCP servers connected, MB`, value: fixedRounds === 1 ? idle[0]!.toFixed(0) : formatSpread(idle), target: '< 150', met: spread(idle).median < 150 },
      { measure: `gateway peak RSS (VmHWM)${name} at ${rate} webhooks/s for ${fixedDuration} s, ${mcpServers} stdio MCP servers, MB`, value: `${fixedRounds === 1 ? peak[0]!.toFixed(0) : formatSpread(peak)} (highest sample ${Math.max(...sampled).toFixed(0)})`, target: '< 150', met: spread(peak).median < 150 },
    ];
  });
}

/** Where a process's RSS lives: /proc/PID/smaps summed by kind of mapping (MB), largest first. */
function smapsSummary(pid: number): string {
  const totals = new Map<string, number>();
  let kind = '';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) kind = head[1] ? path.basename(head[1]) : '[anon]';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) totals.set(kind, (totals.get(kind) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([name, mb]) => `  ${mb.toFixed(1).padStart(6)} MB ${name}`).join('\n');
}

/** Waits (at most 60 s) until no accepted delivery is queued or running. */
async function drained(call: (method: string) => Promise<unknown>): Promise<void> {
  await waitFor(async () => {
    const counts = ((await call('webhooks.counts')) ?? {}) as Record<string, number>;
    return (counts.queued ?? 0) + (counts.running ?? 0) === 0 ? true : undefined;
  }, 'the warm-up runs to finish', 60_000, 200);
}

const fixedOnly = memoryOnly || latencyOnly;
const rows: BenchRow[] = fixedOnly ? [] : [...(await intakeRounds(''))];
if (busyWorkers > 0 && !fixedOnly) {
  const workers = busy(busyWorkers);
  try {
    rows.push(...(await intakeRounds(` with --load ${busyWorkers}`)));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
if (!intakeOnly && !memoryOnly) rows.push(...(await fixedRate()));
if (!intakeOnly && !latencyOnly) rows.push(...(await memoryWithMcp()));
report('Webhook intake (bench-webhooks)', rows, args);
