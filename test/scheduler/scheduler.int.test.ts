import { isAlive } from '../helpers/process.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HomeLayout } from '../../source/config/home.js';
import { openStore } from '../../source/store/database.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import type { JobRow } from '../../source/store/jobs.js';
import { createJobCommands } from '../../source/scheduler/job-commands.js';
import { STALE_REQUEST_MS } from '../../source/scheduler/scheduler.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { makeScheduler, waitFor, writeScript, type SchedulerHarnessOptions } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function harness(home: HomeLayout = tempHome(), options: SchedulerHarnessOptions = {}) {
  const made = makeScheduler(home, options);
  cleanups.push(async () => { await made.scheduler.stop(); made.store.close(); });
  return { ...made, home };
}

async function create(h: ReturnType<typeof harness>, request: { schedule?: string; prompt?: string; script?: string; deliver?: string; catchUp?: string; name?: string }): Promise<JobRow> {
  const result = await h.scheduler.commands.create(
    { schedule: request.schedule ?? 'every 1h', prompt: request.prompt ?? 'Report', script: request.script, deliver: request.deliver, catchUp: request.catchUp, name: request.name },
    { origin: 'cli', defaultDeliver: 'local', baseDir: h.home.root },
  );
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

async function runNow(h: ReturnType<typeof harness>, ref: string) {
  const result = await h.scheduler.runNow(ref);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

function outputFiles(home: HomeLayout, jobId: string): string[] {
  const dir = path.join(home.root, 'cron', 'output', jobId);
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
}


describe('job runs (real Bree workers from dist, real dry-run agent, real local delivery)', () => {
  it('puts the script output into the prompt and delivers the answer to cron/output/<job>/', async () => {
    const h = harness();
    const script = writeScript(path.join(h.home.root, 'scripts'), 'disk.sh', 'echo "disk at 91%"');
    const job = await create(h, { script, name: 'disk' });
    const run = await runNow(h, 'disk');
    expect(run).toMatchObject({ status: 'ok', trigger: 'manual', jobId: job.id, deliveryTarget: 'local', deliveryOk: true });
    expect(run.output).toContain('## User prompt\n\nReport\n\n## Script output\n\n```\ndisk at 91%\n```');
    expect(run.scriptMs).toBeGreaterThanOrEqual(0);
    const [file] = outputFiles(h.home, job.id);
    expect(run.deliveryDetail).toBe(file);
    expect(fs.readFileSync(file!, 'utf8')).toContain('disk at 91%');
    expect(await h.jobs.get(job.id)).toMatchObject({ lastStatus: 'ok', consecutiveFailures: 0 });
    expect(h.seen.map((event) => event.name)).toEqual(['job.changed', 'job.started', 'job.changed', 'job.finished']);
    expect(h.seen[3]!.payload).toMatchObject({ status: 'ok', runId: run.id, delivery: { target: 'local', ok: true } });
  });

  it('does not follow a script path swapped for a symlink after the job was created', async () => {
    const h = harness();
    const scripts = path.join(h.home.root, 'scripts');
    const script = writeScript(scripts, 'report.sh', 'echo fine');
    const elsewhere = writeScript(path.join(h.home.root, 'elsewhere'), 'evil.sh', 'echo EVIL_RAN');
    const job = await create(h, { script, name: 'report' });
    fs.rmSync(fs.realpathSync(script));
    fs.symlinkSync(elsewhere, fs.realpathSync(scripts) + '/report.sh');
    const run = await runNow(h, 'report');
    expect(run.status).toBe('error');
    expect(run.error).toContain(`pre-run script ${job.script} of job report was not run: it now resolves to ${fs.realpathSync(elsewhere)}`);
    expect(run.output).not.toContain('EVIL_RAN');
  });

  it('adds a Script error block for a failing script, still runs the agent, and delivers the failure', async () => {
    const h = harness();
    const script = writeScript(path.join(h.home.root, 'scripts'), 'fail.sh', 'echo partial; echo "cannot reach host" >&2; exit 3');
    const job = await create(h, { script });
    const run = await runNow(h, job.id);
    expect(run.status).toBe('error');
    expect(run.error).toContain(`pre-run script ${fs.realpathSync(script)} exited with code 3`);
    expect(run.agentRunId).not.toBeNull();
    expect(run.output).toContain('## Script error');
    expect(run.output).toContain('cannot reach host');
    expect(run.output).toContain('stdout:\n```\npartial\n```');
    const delivered = fs.readFileSync(outputFiles(h.home, job.id)[0]!, 'utf8');
    expect(delivered.startsWith('# Run failed')).toBe(true);
    expect(delivered).toContain('exited with code 3');
    expect(await h.jobs.get(job.id)).toMatchObject({ lastStatus: 'error', consecutiveFailures: 1 });
  });

  it('kills the whole process tree of a script that outlives cron.script_timeout_seconds', async () => {
    const h = harness(tempHome(), { scriptTimeoutMs: 700 });
    const dir = path.join(h.home.root, 'scripts');
    const script = writeScript(dir, 'hang.sh', 'sleep 300 &\necho $! > child.pid\nsleep 300');
    const job = await create(h, { script });
    const run = await runNow(h, job.id);
    expect(run.status).toBe('error');
    expect(run.error).toContain('timed out after 0.7 s (cron.script_timeout_seconds); its process tree was killed');
    const grandchild = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    await waitFor(() => !isAlive(grandchild), 5_000, `pid ${grandchild} to die`);
  });

  it('skips the agent when the script succeeds with empty output', async () => {
    const h = harness();
    const script = writeScript(path.join(h.home.root, 'scripts'), 'quiet.sh', 'exit 0');
    const job = await create(h, { script });
    const run = await runNow(h, job.id);
    expect(run).toMatchObject({ status: 'skipped', agentRunId: null, deliveryTarget: null });
    expect(run.reason).toContain('empty output');
    expect(outputFiles(h.home, job.id)).toEqual([]);
    expect((await h.jobs.get(job.id))!.lastStatus).toBe('skipped');
  });

  it('does not deliver an answer containing [SILENT] but keeps it in the history', async () => {
    const h = harness();
    const job = await create(h, { prompt: 'Check the queue; answer [SILENT] when it is empty' });
    const run = await runNow(h, job.id);
    expect(run.status).toBe('silent');
    expect(run.output).toContain('[SILENT]');
    expect(outputFiles(h.home, job.id)).toEqual([]);
  });

  it('records delivery_failed with the reason when delivery fails (a platform disabled after the job was written)', async () => {
    const h = harness();
    const job = await create(h, { deliver: 'telegram:42' });
    const run = await runNow(h, job.id);
    expect(run).toMatchObject({ status: 'delivery_failed', deliveryTarget: 'telegram:42', deliveryOk: false });
    expect(run.deliveryDetail).toContain('platforms.telegram is not enabled');
    expect(await h.jobs.get(job.id)).toMatchObject({ lastStatus: 'delivery_failed', consecutiveFailures: 1 });
  });

  it('delivers a failed agent run with its error', async () => {
    const model: ScriptedModel = await startScriptedModel([{ status: 400, message: 'model says no' }], { repeatLast: true });
    cleanups.push(() => model.close());
    const h = harness(tempHome(), { editConfig: (config) => { config.model = { provider: 'openai-compatible', base_url: model.url, name: 'm' }; } });
    const job = await create(h, { prompt: 'Summarize', deliver: 'local' });
    const run = await runNow(h, job.id);
    expect(run.status).toBe('error');
    expect(run.error).toMatch(/^agent run failed: /);
    const delivered = fs.readFileSync(outputFiles(h.home, job.id)[0]!, 'utf8');
    expect(delivered).toContain('# Run failed');
    expect(delivered).toContain(`Job "summarize" (${job.id}) failed: agent run failed`);
  });
});

describe('scheduling with a fake clock', () => {
  const T0 = Date.parse('2026-11-21T10:00:00Z');

  it('fires due jobs, advances the next run, and records an overlapping fire as skipped', async () => {
    let now = T0;
    const h = harness(tempHome(), { now: () => now });
    const dir = path.join(h.home.root, 'scripts');
    const script = writeScript(dir, 'wait.sh', 'while [ ! -f release ]; do sleep 0.05; done\necho released');
    const job = await create(h, { schedule: 'every 5m', script });
    expect(job.nextRunAtMs).toBe(T0 + 300_000);
    await h.scheduler.start();

    now = T0 + 299_000;
    await h.scheduler.tick();
    expect(h.scheduler.snapshot().running).toEqual([]);

    now = T0 + 300_000;
    await h.scheduler.tick();
    expect(h.scheduler.snapshot().running).toEqual([job.id]);
    expect((await h.jobs.get(job.id))!.nextRunAtMs).toBe(T0 + 600_000);

    now = T0 + 600_000; // still running at the next fire
    await h.scheduler.tick();
    const manual = await runNow(h, job.id); // and a manual run meanwhile
    expect(manual.status).toBe('skipped');
    fs.writeFileSync(path.join(dir, 'release'), '');
    await h.scheduler.idle();

    const runs = (await h.jobs.runs(job.id, 10)).reverse();
    expect(runs.map((run) => [run.trigger, run.status, run.scheduledAtMs])).toEqual([
      ['schedule', 'ok', T0 + 300_000],
      ['schedule', 'skipped', T0 + 600_000],
      ['manual', 'skipped', null],
    ]);
    expect(runs[1]!.reason).toContain('still running at this fire (overlap)');
    expect((await h.jobs.get(job.id))!.nextRunAtMs).toBe(T0 + 900_000);
  });

  it('catch_up once runs a recently missed fire at start; skip records it and waits', async () => {
    let now = T0;
    const home = tempHome();
    const first = harness(home, { now: () => now });
    const once = await create(first, { name: 'once', catchUp: 'once' });
    const skip = await create(first, { name: 'skip', catchUp: 'skip' });
    await first.scheduler.stop();

    now = T0 + 3_600_000 + 10 * 60_000; // the 11:00 fire was missed 10 minutes ago (window: 30 min)
    const second = harness(home, { now: () => now });
    await second.scheduler.start();
    await second.scheduler.idle();
    const [onceRun] = await second.jobs.runs(once.id, 5);
    expect(onceRun).toMatchObject({ trigger: 'catch_up', status: 'ok', scheduledAtMs: T0 + 3_600_000 });
    const [skipRun] = await second.jobs.runs(skip.id, 5);
    expect(skipRun).toMatchObject({ trigger: 'catch_up', status: 'skipped' });
    expect(skipRun!.reason).toContain('catch_up is skip');
    expect((await second.jobs.get(once.id))!.nextRunAtMs).toBe(T0 + 2 * 3_600_000);
    expect((await second.jobs.get(skip.id))!.nextRunAtMs).toBe(T0 + 2 * 3_600_000);
  });

  it('at start, closes runs a dead gateway left running as interrupted, and queued requests nobody took for a minute', async () => {
    const home = tempHome();
    const first = harness(home);
    const job = await create(first, {});
    await first.jobs.addRun({ id: 'was-running', jobId: job.id, jobName: job.name, trigger: 'schedule', status: 'running', atMs: Date.now() });
    await first.jobs.addRun({ id: 'was-queued', jobId: job.id, jobName: job.name, trigger: 'manual', status: 'queued', atMs: Date.now() - STALE_REQUEST_MS - 1 });
    // Younger: another live node (or this one, at its first pass) takes it.
    await first.jobs.addRun({ id: 'just-queued', jobId: job.id, jobName: job.name, trigger: 'manual', status: 'queued', atMs: Date.now() });
    const second = harness(home);
    await second.scheduler.start();
    expect(await second.jobs.getRun('was-running')).toMatchObject({ status: 'interrupted', error: 'the gateway stopped during this run' });
    // The job shows it: last status interrupted, one more consecutive failure (issue #18, item 2).
    expect(await second.jobs.get(job.id)).toMatchObject({ lastStatus: 'interrupted', lastError: 'the gateway stopped during this run', consecutiveFailures: 1 });
    expect(await second.jobs.getRun('was-queued')).toMatchObject({ status: 'error' });
    expect((await second.jobs.getRun('was-queued'))!.error).toContain('not run');
    expect(await second.jobs.getRun('just-queued')).toMatchObject({ status: 'queued' });
    await second.scheduler.tick();
    await second.scheduler.idle();
    expect(await second.jobs.getRun('just-queued')).toMatchObject({ status: 'ok', trigger: 'manual' });
  });

  it('catch_up once skips a missed fire older than half a period', async () => {
    let now = T0;
    const home = tempHome();
    const first = harness(home, { now: () => now });
    const job = await create(first, { catchUp: 'once' });
    await first.scheduler.stop();
    now = T0 + 3_600_000 + 45 * 60_000;
    const second = harness(home, { now: () => now });
    await second.scheduler.start();
    await second.scheduler.idle();
    const runs = await second.jobs.runs(job.id, 5);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'skipped', trigger: 'catch_up' });
    expect(runs[0]!.reason).toContain('beyond the catch-up window of 30 min');
  });

  it('notices jobs and run requests written by another connection (as the CLI does)', async () => {
    const h = harness(tempHome(), { timers: true });
    await h.scheduler.start();
    const other = openStore(h.home.stateDb);
    cleanups.push(() => other.close());
    const otherJobs = sqliteBackends(other).jobs;
    const created = await createJobCommands({ jobs: otherJobs, timezone: 'UTC', now: Date.now }).create(
      { schedule: 'every 1d', prompt: 'from the CLI' }, { origin: 'cli', defaultDeliver: 'local', baseDir: h.home.root });
    if (!created.ok) throw new Error(created.reason);
    await otherJobs.addRun({ id: 'queued-1', jobId: created.value.id, jobName: created.value.name, trigger: 'manual', status: 'queued', atMs: Date.now() });
    const finished = await waitFor(async () => {
      const run = await otherJobs.getRun('queued-1');
      return run && run.status !== 'queued' && run.status !== 'running' ? run : undefined;
    }, 10_000, 'the queued run');
    expect(finished.status).toBe('ok');
    expect(h.seen.find((event) => event.name === 'job.changed')?.payload).toMatchObject({ jobId: created.value.id, change: 'created' });
    const edited = await createJobCommands({ jobs: otherJobs, timezone: 'UTC', now: Date.now }).edit(created.value.id, { schedule: '0 3 * * *', prompt: 'edited' }, { origin: 'cli', defaultDeliver: 'local', baseDir: h.home.root });
    expect(edited.ok && edited.value).toMatchObject({ schedule: '0 3 * * *', prompt: 'edited', origin: 'cli' });
    const updated = await waitFor(() => h.seen.find((event) => event.name === 'job.changed' && (event.payload as { job: { schedule?: string } | null }).job?.schedule === '0 3 * * *'), 10_000, 'job.changed updated');
    expect(updated.payload).toMatchObject({ job: { schedule: '0 3 * * *', nextRunAtMs: edited.ok ? edited.value.nextRunAtMs : -1 } });
    expect(new Date(h.scheduler.snapshot().nextRunAtMs!).getUTCHours()).toBe(3);
    await createJobCommands({ jobs: otherJobs, timezone: 'UTC', now: Date.now }).remove(created.value.id);
    await waitFor(() => h.seen.some((event) => event.name === 'job.changed' && (event.payload as { change: string }).change === 'removed'), 10_000, 'job.changed removed');
  });
});
