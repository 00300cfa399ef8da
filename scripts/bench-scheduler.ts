// Scheduler benchmark. Usage (after npm run build; --expose-gc makes the heap figure meaningful):
//   PATH=$PWD/node_modules/.bin:$PATH NODE_OPTIONS=--expose-gc npx tsx scripts/bench-scheduler.ts [--smoke] [--json FILE]
// 1) 1000 `every 1m` jobs registered: memory and idle CPU of the scheduler loop.
// 2) 50 jobs due in the same minute (`* * * * *`), dry-run model, local delivery: lateness of each fire
//    (left out by --smoke: it waits for the next minute).
import { silenceSqliteExperimentalWarning } from '../source/infra/quiet-sqlite-warning.js';

silenceSqliteExperimentalWarning();
const { benchArgs, report } = await import('./bench-lib.js');
const args = benchArgs();
const jobCount = args.number('jobs', 1000, 100);
const idleMs = args.number('idle-ms', 10_000, 1_000);

const fs = await import('node:fs');
const os = await import('node:os');
const path = await import('node:path');
const { pino } = await import('pino');
const { createAgentStack } = await import('../source/agent/agent-stack.js');
const { defaultConfig } = await import('../source/config/default-config.js');
const { homeLayout } = await import('../source/config/home.js');
const { resolveConfig } = await import('../source/config/load.js');
const { createDeliver } = await import('../source/delivery/deliver.js');
const { createPreRunWorkers } = await import('../source/scheduler/pre-run-workers.js');
const { createScheduler } = await import('../source/scheduler/scheduler.js');
const { sqliteExternalChanges, sqliteJobBackend } = await import('../source/scheduler/sqlite-jobs.js');
const { openStore } = await import('../source/store/database.js');
const { sqliteBackends } = await import('../source/store/async-domains.js');

const logger = pino({ level: 'silent' });
const temps: string[] = [];

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
  temps.push(root);
  const home = homeLayout(path.join(root, 'home'));
  const file = defaultConfig();
  file.timezone = 'UTC';
  const config = resolveConfig(file, home, {});
  const store = openStore(home.stateDb);
  const { runs, approvals } = sqliteBackends(store);
  const stack = createAgentStack({ config, runs, approvals, logger, policy: 'deny' });
  const scheduler = createScheduler({
    jobs: sqliteJobBackend(store), externalChanges: sqliteExternalChanges(store), logger, timezone: 'UTC', scriptTimeoutMs: 300_000, runAgent: stack.runAgent,
    deliver: createDeliver({ homeRoot: home.root, logger }), preRun: createPreRunWorkers({ logger }),
  });
  return { home, store, scheduler };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rows: Array<[string, string]> = [];

// 1) registered jobs
{
  global.gc?.();
  const before = process.memoryUsage();
  const { scheduler, store } = setup();
  const createStart = performance.now();
  for (let i = 0; i < jobCount; i++) {
    const result = await scheduler.commands.create({ schedule: 'every 1m', prompt: `job ${i}` }, { origin: 'cli', defaultDeliver: 'local', baseDir: '/' });
    if (!result.ok) throw new Error(result.reason);
  }
  const createMs = performance.now() - createStart;
  await scheduler.start();
  global.gc?.();
  const after = process.memoryUsage();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await sleep(idleMs); // no job is due for 60 s: this is the idle loop
  const cpu = process.cpuUsage(cpuBefore);
  const wall = performance.now() - wallBefore;
  await scheduler.stop();
  store.close();
  rows.push([`${jobCount} x every 1m: create (store + croner)`, `${createMs.toFixed(0)} ms total, ${(createMs / jobCount).toFixed(2)} ms per job`]);
  rows.push([`${jobCount} x every 1m: RSS / heap growth`, `${mb(after.rss - before.rss)} / ${mb(after.heapUsed - before.heapUsed)} (RSS now ${mb(after.rss)})`]);
  rows.push([`${jobCount} x every 1m: idle CPU over ${idleMs / 1000} s`, `${(((cpu.user + cpu.system) / 1000 / wall) * 100).toFixed(2)} % of one core (${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU)`]);
}

// 2) 50 jobs due in the same minute
if (!args.smoke) {
  const { scheduler, store } = setup();
  for (let i = 0; i < 50; i++) {
    const result = await scheduler.commands.create({ schedule: '* * * * *', prompt: `minute job ${i}` }, { origin: 'cli', defaultDeliver: 'local', baseDir: '/' });
    if (!result.ok) throw new Error(result.reason);
  }
  // Not too close to the boundary: every job must be registered before its fire.
  if (60_000 - (Date.now() % 60_000) < 2_000) await sleep(3_000);
  await scheduler.start();
  const due = scheduler.snapshot().nextRunAtMs!;
  process.stderr.write(`waiting ${Math.round((due - Date.now()) / 1000)} s for the minute boundary...\n`);
  await sleep(Math.max(0, due - Date.now()));
  while ((await scheduler.jobs.runs(undefined, 100)).filter((run) => run.status !== 'running').length < 50) await sleep(50);
  await scheduler.idle();
  const runs = await scheduler.jobs.runs(undefined, 100);
  await scheduler.stop();
  store.close();
  const lateness = runs.map((run) => run.startedAtMs! - run.scheduledAtMs!).sort((a, b) => a - b);
  const done = runs.map((run) => run.finishedAtMs! - run.scheduledAtMs!).sort((a, b) => a - b);
  const pct = (values: number[], p: number) => values[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
  const statuses = [...new Set(runs.map((run) => run.status))].join(', ');
  rows.push(['50 due in one minute: runs / statuses', `${runs.length} / ${statuses}`]);
  rows.push(['50 due in one minute: start lateness p50 / p99 / max', `${pct(lateness, 50)} / ${pct(lateness, 99)} / ${lateness.at(-1)} ms`]);
  rows.push(['50 due in one minute: finished (delivered) p50 / p99 / max', `${pct(done, 50)} / ${pct(done, 99)} / ${done.at(-1)} ms after the fire time`]);
}

for (const root of temps) fs.rmSync(root, { recursive: true, force: true });
report('Scheduler (bench-scheduler): dry-run model, local delivery', rows.map(([measure, value]) => ({ measure: `scheduler: ${measure}`, value })), args);
