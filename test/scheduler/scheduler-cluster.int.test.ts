import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJobCommands } from '../../source/scheduler/job-commands.js';
import type { JobBackend } from '../../source/store/async-domains.js';
import type { JobRow } from '../../source/store/jobs.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';
import { makeScheduler, writeScript } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * Scheduled jobs in a cluster (issue #19): three schedulers, one per node, on one PostgreSQL, each
 * with its own clock (a little apart, as real clocks are) and no timer: the test moves the clocks
 * and runs a pass on every node at once. Each slot of each job must fire once in the cluster, on
 * the node that took it, and catch-up after every node was down must happen once per job too.
 */
const postgres = usePostgres();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

const T0 = Date.parse('2026-11-21T10:00:00Z');
const MINUTE = 60_000;
const NODES = ['node-a', 'node-b', 'node-c'];
/** Each node's clock runs a little ahead of the last one's. */
const SKEW_MS = [0, 150, 300];
const cli = { origin: 'cli', defaultDeliver: 'local', baseDir: '/' };

interface Cluster {
  url: string;
  /** One connection pool per node, and one for the test's own reads. */
  reader: PgStore;
  jobs: JobBackend;
  setNow(ms: number): void;
  /** Starts one scheduler per node (a new process each time), all at once. */
  startNodes(): Promise<Array<ReturnType<typeof node>>>;
}

function node(store: PgStore, nodeId: string, now: () => number) {
  const made = makeScheduler(tempHome(), { jobs: pgBackends(store, now, nodeId).jobs, now, timers: false });
  const scripts = vi.spyOn(made.preRun, 'run');
  const started = () => made.seen.filter((event) => event.name === 'job.started').map((event) => (event.payload as { runId: string }).runId);
  return { nodeId, ...made, scripts, started };
}

async function cluster(): Promise<Cluster> {
  const url = await postgres().freshDatabase();
  const reader = await openPgStore(url);
  cleanups.push(() => reader.close());
  let now = T0;
  return {
    url, reader, jobs: pgBackends(reader).jobs,
    setNow: (ms) => { now = ms; },
    async startNodes() {
      const nodes = await Promise.all(NODES.map(async (nodeId, index) => {
        const store = await openPgStore(url);
        const made = node(store, nodeId, () => now + SKEW_MS[index]!);
        cleanups.push(async () => { await made.scheduler.stop(); made.store.close(); await store.close(); });
        return made;
      }));
      await Promise.all(nodes.map((each) => each.scheduler.start()));
      await Promise.all(nodes.map((each) => each.scheduler.idle()));
      return nodes;
    },
  };
}

/** Twenty `every 1m` jobs made at T0 (the first two with a pre-run script); even ones catch up `once`, odd ones `skip`. */
async function twentyJobs(jobs: JobBackend, scriptsDir: string): Promise<JobRow[]> {
  const commands = createJobCommands({ jobs, timezone: 'UTC', now: () => T0 });
  const script = writeScript(scriptsDir, 'usage.sh', 'echo "usage 42%"');
  const made: JobRow[] = [];
  for (let index = 0; index < 20; index += 1) {
    const created = await commands.create({
      schedule: 'every 1m', prompt: `Report ${index}`, name: `minutely-${index}`, catchUp: index % 2 === 0 ? 'once' : 'skip', ...(index < 2 ? { script } : {}),
    }, cli);
    if (!created.ok) throw new Error(created.reason);
    made.push(created.value);
  }
  return made;
}

/** A pass on every node at once at `atMs`, then every run they started finished. */
async function passAt(c: Cluster, nodes: Array<ReturnType<typeof node>>, atMs: number) {
  c.setNow(atMs);
  await Promise.all(nodes.map((each) => each.scheduler.tick()));
  await Promise.all(nodes.map((each) => each.scheduler.idle()));
}

const runsOf = async (jobs: JobBackend, job: JobRow) => (await jobs.runs(job.id, 50)).reverse();

/** Which node holds each run row (the node that took its slot). */
async function nodeOfRuns(reader: PgStore): Promise<Map<string, string>> {
  const { rows } = await reader.query<{ id: string; node_id: string }>('SELECT id, node_id FROM job_runs');
  return new Map(rows.map((row) => [row.id, row.node_id]));
}

describe('scheduled jobs on three nodes', () => {
  it('twenty every-1m jobs for three minutes: exactly three runs each, each run and its pre-run script on the node that took the slot', async () => {
    const c = await cluster();
    const jobs = await twentyJobs(c.jobs, path.join(tempHome().root, 'scripts'));
    const nodes = await c.startNodes();
    for (let minute = 1; minute <= 3; minute += 1) await passAt(c, nodes, T0 + minute * MINUTE);

    for (const job of jobs) {
      const runs = await runsOf(c.jobs, job);
      expect(runs.map((run) => [run.trigger, run.status, run.scheduledAtMs]), job.name).toEqual([1, 2, 3].map((minute) => ['schedule', 'ok', T0 + minute * MINUTE]));
      expect((await c.jobs.get(job.id))!.nextRunAtMs).toBe(T0 + 4 * MINUTE);
    }
    // Every run was started by one node only, and the store says that node holds it.
    const holders = await nodeOfRuns(c.reader);
    const started = nodes.flatMap((each) => each.started().map((runId) => [runId, each.nodeId]));
    expect(started).toHaveLength(60);
    expect(new Set(started.map(([runId]) => runId)).size).toBe(60);
    for (const [runId, nodeId] of started) expect(holders.get(runId!)).toBe(nodeId);
    // The pre-run scripts ran in the Bree workers of the node that took the slot, once per slot.
    const scripted = new Set((await Promise.all(jobs.slice(0, 2).map((job) => runsOf(c.jobs, job)))).flat().map((run) => run.id));
    for (const each of nodes) {
      const fired = each.scripts.mock.calls.map(([request]) => request.fireId);
      expect(fired.sort()).toEqual(each.started().filter((runId) => scripted.has(runId)).sort());
    }
    expect(nodes.reduce((sum, each) => sum + each.scripts.mock.calls.length, 0)).toBe(6);
    // Each node's memory moved on to the next slot too (a node that lost a slot reads the job again).
    for (const each of nodes) expect(each.scheduler.snapshot().nextRunAtMs).toBe(T0 + 4 * MINUTE);
  });

  it('a node that finds a slot already taken by another moves on to the next slot (its timer would spin on a stale one)', async () => {
    const c = await cluster();
    const [job] = await twentyJobs(c.jobs, path.join(tempHome().root, 'scripts'));
    const [a, b] = await c.startNodes();
    c.setNow(T0 + MINUTE);
    await a!.scheduler.tick();
    await a!.scheduler.idle();
    expect(b!.scheduler.snapshot().nextRunAtMs).toBe(T0 + MINUTE);
    await b!.scheduler.tick(); // the store says nothing is due: b reads the jobs it believed due again
    expect(b!.started()).toEqual([]);
    expect(b!.scheduler.snapshot().nextRunAtMs).toBe(T0 + 2 * MINUTE);
    expect(b!.scheduler.known().find((known) => known.id === job!.id)!.nextRunAtMs).toBe(T0 + 2 * MINUTE);
    const runs = await runsOf(c.jobs, job!);
    expect(runs).toHaveLength(1);
    expect(a!.started()).toContain(runs[0]!.id);
  });

  it('every node down for five minutes, then all started at once: each job catches up (or skips) its missed slot once', async () => {
    const c = await cluster();
    const jobs = await twentyJobs(c.jobs, path.join(tempHome().root, 'scripts'));
    const before = await c.startNodes();
    await passAt(c, before, T0 + MINUTE);
    for (const each of before) await each.scheduler.stop();

    // Down from T0+1m: the fires of T0+2m..T0+6m are missed; back 10 s after the last one.
    c.setNow(T0 + 6 * MINUTE + 10_000);
    const after = await c.startNodes();
    for (const [index, job] of jobs.entries()) {
      const runs = await runsOf(c.jobs, job);
      const expected = index % 2 === 0 ? 'ok' : 'skipped';
      expect(runs.map((run) => [run.trigger, run.status, run.scheduledAtMs]), job.name).toEqual([['schedule', 'ok', T0 + MINUTE], ['catch_up', expected, T0 + 6 * MINUTE]]);
      expect((await c.jobs.get(job.id))!.nextRunAtMs).toBe(T0 + 7 * MINUTE);
    }
    // Nothing more before the next slot, then one fire of it in the cluster.
    await passAt(c, after, T0 + 6 * MINUTE + 20_000);
    await passAt(c, after, T0 + 7 * MINUTE);
    for (const job of jobs) {
      const runs = await runsOf(c.jobs, job);
      expect(runs.map((run) => run.trigger), job.name).toEqual(['schedule', 'catch_up', 'schedule']);
      expect(runs[2]!.scheduledAtMs).toBe(T0 + 7 * MINUTE);
    }
  });
});
