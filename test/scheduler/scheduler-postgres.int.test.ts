import { afterEach, describe, expect, it } from 'vitest';
import { createJobCommands } from '../../source/scheduler/job-commands.js';
import type { JobBackend } from '../../source/store/async-domains.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';
import { makeScheduler } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The scheduler on the PostgreSQL backend (issue #19): every store call a round trip, no
 * data_version, so changes of other nodes are found by reading the job versions at each pass.
 * The agent runs and deliveries stay local (dry-run model, files in the home).
 */
const postgres = usePostgres();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

/** `nodes` job backends on one new database, one per gateway of a cluster. */
async function pgJobs(nodes = 1): Promise<JobBackend[]> {
  const url = await postgres().freshDatabase();
  return Promise.all(Array.from({ length: nodes }, async () => {
    const store = await openPgStore(url);
    cleanups.push(() => store.close());
    return pgBackends(store).jobs;
  }));
}

function harness(jobs: JobBackend, now?: () => number) {
  const made = makeScheduler(tempHome(), { jobs, ...(now ? { now } : {}) });
  cleanups.push(async () => { await made.scheduler.stop(); made.store.close(); });
  return made;
}

const cli = { origin: 'cli', defaultDeliver: 'local', baseDir: '/' };
const T0 = Date.parse('2026-11-21T10:00:00Z');
const names = (seen: Array<{ name: string }>) => seen.map((event) => event.name);

describe('scheduler on PostgreSQL', () => {
  it('fires a due job: its run is recorded, finished and delivered, the job advances', async () => {
    let now = T0;
    const [jobs] = await pgJobs();
    const h = harness(jobs!, () => now);
    const created = await h.scheduler.commands.create({ schedule: 'every 5m', prompt: 'Report the disk', name: 'disk' }, cli);
    if (!created.ok) throw new Error(created.reason);
    const id = created.value.id;
    await h.scheduler.start();
    expect(h.scheduler.snapshot()).toEqual({ jobs: 1, enabled: 1, running: [], nextRunAtMs: T0 + 300_000 });

    now = T0 + 299_999;
    await h.scheduler.tick();
    expect(await jobs!.runs(id, 5)).toEqual([]);

    now = T0 + 300_000;
    await h.scheduler.tick();
    expect(h.scheduler.snapshot().running).toEqual([id]);
    await h.scheduler.idle();
    const runs = await jobs!.runs(id, 5);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'schedule', status: 'ok', scheduledAtMs: T0 + 300_000, startedAtMs: T0 + 300_000, finishedAtMs: T0 + 300_000, deliveryTarget: 'local', deliveryOk: true });
    expect(runs[0]!.output).toContain('Report the disk');
    expect(await jobs!.get(id)).toMatchObject({ lastStatus: 'ok', lastRunAtMs: T0 + 300_000, consecutiveFailures: 0, nextRunAtMs: T0 + 600_000 });
    expect(h.scheduler.snapshot()).toEqual({ jobs: 1, enabled: 1, running: [], nextRunAtMs: T0 + 600_000 });
    expect(names(h.seen)).toEqual(['job.changed', 'job.changed', 'job.started', 'job.changed', 'job.finished']);
  });

  it('a paused job does not fire; resumed, it fires at its next run', async () => {
    let now = T0;
    const [jobs] = await pgJobs();
    const h = harness(jobs!, () => now);
    const created = await h.scheduler.commands.create({ schedule: 'every 5m', prompt: 'ping', name: 'ping' }, cli);
    if (!created.ok) throw new Error(created.reason);
    await h.scheduler.start();

    expect(await h.scheduler.commands.pause('ping')).toMatchObject({ ok: true, value: { enabled: false, nextRunAtMs: null } });
    expect(await h.scheduler.commands.pause('ping')).toEqual({ ok: false, reason: `job ping (${created.value.id}) is already paused` });
    expect(h.scheduler.snapshot()).toEqual({ jobs: 1, enabled: 0, running: [], nextRunAtMs: null });
    now = T0 + 300_000;
    await h.scheduler.tick();
    await h.scheduler.idle();
    expect(await jobs!.runs(created.value.id, 5)).toEqual([]);

    const resumed = await h.scheduler.commands.resume(created.value.id);
    if (!resumed.ok) throw new Error(resumed.reason);
    expect(resumed.value).toMatchObject({ enabled: true, nextRunAtMs: T0 + 600_000 });
    expect(h.scheduler.snapshot()).toEqual({ jobs: 1, enabled: 1, running: [], nextRunAtMs: T0 + 600_000 });
    now = T0 + 600_000;
    await h.scheduler.tick();
    await h.scheduler.idle();
    expect((await jobs!.runs(created.value.id, 5)).map((run) => [run.status, run.scheduledAtMs])).toEqual([['ok', T0 + 600_000]]);
  });

  it('three creates of one name at once in one process: one job, the others refused (changes run one at a time)', async () => {
    const [jobs] = await pgJobs();
    const h = harness(jobs!);
    await Promise.all(Array.from({ length: 6 }, () => jobs!.list())); // connections open: the three creates run side by side
    const results = await Promise.all([1, 2, 3].map((i) => h.scheduler.commands.create({ schedule: `every ${i}h`, prompt: 'same', name: 'twin' }, cli)));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.reason)).toEqual([
      expect.stringContaining('a job named "twin" already exists'), expect.stringContaining('a job named "twin" already exists'),
    ]);
    expect(await jobs!.byName('twin')).toHaveLength(1);
  });

  it('notices jobs another node wrote, and of two schedulers claiming its queued runs, one runs each', async () => {
    const [a, b, writer] = await pgJobs(3);
    const first = harness(a!);
    const second = harness(b!);
    await first.scheduler.start();
    await second.scheduler.start();
    const commands = createJobCommands({ jobs: writer!, timezone: 'UTC', now: Date.now });
    const made = await Promise.all(['one', 'two', 'three'].map((name) => commands.create({ schedule: 'every 1d', prompt: `run ${name}`, name }, cli)));
    const ids = made.map((result) => (result.ok ? result.value.id : ''));
    for (const [i, id] of ids.entries()) {
      await writer!.addRun({ id: `queued-${i}`, jobId: id, jobName: `job ${i}`, trigger: 'manual', status: 'queued', atMs: Date.now() });
    }

    await Promise.all([first.scheduler.tick(), second.scheduler.tick()]);
    await Promise.all([first.scheduler.idle(), second.scheduler.idle()]);
    // Both found the three jobs by re-reading the versions (no data_version on PostgreSQL).
    for (const h of [first, second]) {
      expect(h.seen.filter((event) => event.name === 'job.changed' && (event.payload as { change: string }).change === 'created')).toHaveLength(3);
      expect(h.scheduler.snapshot().jobs).toBe(3);
    }
    const started = [...first.seen, ...second.seen].filter((event) => event.name === 'job.started').map((event) => (event.payload as { runId: string }).runId);
    expect(started.sort()).toEqual(['queued-0', 'queued-1', 'queued-2']);
    for (const [i, id] of ids.entries()) {
      const runs = await writer!.runs(id, 5);
      expect(runs.map((run) => [run.id, run.status, run.trigger])).toEqual([[`queued-${i}`, 'ok', 'manual']]);
      expect(runs[0]!.startedAtMs).not.toBeNull();
    }
  });
});
