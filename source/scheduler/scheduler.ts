import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RunAgent } from '../agent/types.js';
import type { Deliver } from '../delivery/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { Store } from '../store/database.js';
import { createJobStore, type JobRow, type JobRunRow, type JobRunTrigger, type RunOutcome } from '../store/jobs.js';
import { decideCatchUp } from './catch-up.js';
import { createJobCommands } from './job-commands.js';
import { executeJob } from './job-execution.js';
import type { Checked } from './job-input.js';
import type { PreRunWorkers } from './pre-run-workers.js';
import { parseSchedule } from './schedule.js';

export interface SchedulerDeps {
  store: Store;
  logger: Logger;
  timezone: string;
  runAgent: RunAgent;
  deliver: Deliver;
  preRun: PreRunWorkers;
  scriptTimeoutMs: number;
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
  /** How often the store is checked for jobs and run requests written by other processes. */
  pollMs?: number;
  /** Checks a new job's `deliver` against the configured platforms. */
  checkDeliver?: (target: string) => Checked<unknown>;
  /** false: no timer loop; tests with a fake clock drive it with `tick()`. */
  timers?: boolean;
}

export interface SchedulerSnapshot {
  jobs: number;
  enabled: number;
  running: string[];
  nextRunAtMs: number | null;
}

/**
 * The scheduler: croner times (via the stored next run), Bree workers for pre-run scripts, agent runs
 * in this process. One timer sleeps until the earliest next run, at most `pollMs`, so changes from
 * the CLI (another process) take effect within a poll.
 */
/** How often the scheduler looks for changes written by another process (it hears its own at once). */
export const RECOVERY_SWEEP_MS = 5_000;

export function createScheduler(deps: SchedulerDeps) {
  const now = deps.now ?? Date.now;
  // A recovery sweep only: changes made through operations re-arm the timer at once (rearm below);
  // the sweep finds what another process wrote while it believed no gateway ran.
  const pollMs = deps.pollMs ?? RECOVERY_SWEEP_MS;
  const jobs = createJobStore(deps.store);
  const log = deps.logger.child({ component: 'scheduler' });
  const running = new Map<string, { controller: AbortController; done: Promise<JobRunRow> }>();
  let versions = new Map<string, number>();
  let dataVersion = -1;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let ticking = false;

  const emitChanged = (jobId: string, change: 'created' | 'updated' | 'removed', job: JobRow | null) => {
    if (job) versions.set(jobId, job.updatedAtMs);
    else versions.delete(jobId);
    deps.events?.emit('job.changed', { jobId, change, job });
    rearm();
  };
  const commands = createJobCommands({ jobs, timezone: deps.timezone, now, onChange: emitChanged, checkDeliver: deps.checkDeliver });

  /** Starts one run of `job` (the caller has checked overlap) and returns its finished record. */
  const launch = (job: JobRow, trigger: JobRunTrigger, runId: string, scheduledAtMs?: number, claimed = false): Promise<JobRunRow> => {
    const startedAtMs = now();
    if (!claimed) jobs.addRun({ id: runId, jobId: job.id, jobName: job.name, trigger, status: 'running', scheduledAtMs, atMs: startedAtMs });
    const controller = new AbortController();
    deps.events?.emit('job.started', { jobId: job.id, jobName: job.name, runId, trigger, atMs: startedAtMs });
    log.info({ jobId: job.id, runId, trigger }, `Job ${job.name} (${job.id}) started (${trigger})`);
    const done = executeJob({ ...deps, now, logger: log }, job, runId, controller.signal)
      .catch((error: unknown): RunOutcome => ({ status: 'error', error: `internal error: ${(error as Error).message}`, finishedAtMs: now() }))
      .then(async (outcome) => {
        await jobs.finishRun(runId, job.id, outcome); // kept: waits out a lock held elsewhere rather than lose the result
        running.delete(job.id);
        emitChanged(job.id, 'updated', jobs.get(job.id) ?? null); // its last status and failure count
        const level = outcome.status === 'error' || outcome.status === 'delivery_failed' ? 'warn' : 'info';
        log[level]({ jobId: job.id, runId, status: outcome.status, error: outcome.error, reason: outcome.reason }, `Job ${job.name} (${job.id}) finished: ${outcome.status}${outcome.error ? ` - ${outcome.error}` : ''}`);
        deps.events?.emit('job.finished', {
          jobId: job.id, jobName: job.name, runId, trigger, status: outcome.status, output: outcome.output ?? '',
          error: outcome.error ?? null, reason: outcome.reason ?? null, delivery: outcome.delivery ?? null, atMs: outcome.finishedAtMs,
        });
        return jobs.getRun(runId)!;
      });
    running.set(job.id, { controller, done });
    return done;
  };

  /** A fire that cannot run: recorded in the history as `skipped` with its reason. */
  const recordSkip = (job: JobRow, trigger: JobRunTrigger, reason: string, scheduledAtMs?: number): JobRunRow => {
    const runId = randomUUID();
    const atMs = now();
    jobs.addRun({ id: runId, jobId: job.id, jobName: job.name, trigger, status: 'running', scheduledAtMs, atMs });
    void jobs.finishRun(runId, job.id, { status: 'skipped', reason, finishedAtMs: atMs });
    log.info({ jobId: job.id, runId, trigger }, `Job ${job.name} (${job.id}) skipped: ${reason}`);
    deps.events?.emit('job.finished', { jobId: job.id, jobName: job.name, runId, trigger, status: 'skipped', output: '', error: null, reason, delivery: null, atMs });
    return jobs.getRun(runId)!;
  };

  const overlapReason = (job: JobRow) => `job ${job.name} (${job.id}) was still running at this fire (overlap)`;

  const fire = (job: JobRow, trigger: JobRunTrigger, scheduledAtMs?: number) => {
    if (running.has(job.id)) recordSkip(job, trigger, overlapReason(job), scheduledAtMs);
    else void launch(job, trigger, randomUUID(), scheduledAtMs);
  };

  const advance = (job: JobRow) => {
    jobs.setNextRun(job.id, commands.nextRunOf(job, now()));
    emitChanged(job.id, 'updated', jobs.get(job.id) ?? null);
  };

  /** Jobs changed by another process: emit job.changed (PRAGMA data_version moves only on others' commits). */
  const noticeChanges = () => {
    const current = (deps.store.db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (current === dataVersion) return;
    dataVersion = current;
    const latest = jobs.versions();
    for (const [id, updatedAtMs] of latest) {
      const before = versions.get(id);
      if (before === undefined) deps.events?.emit('job.changed', { jobId: id, change: 'created', job: jobs.get(id) ?? null });
      else if (before !== updatedAtMs) deps.events?.emit('job.changed', { jobId: id, change: 'updated', job: jobs.get(id) ?? null });
    }
    for (const id of versions.keys()) if (!latest.has(id)) deps.events?.emit('job.changed', { jobId: id, change: 'removed', job: null });
    versions = latest;
  };

  /** One pass: notice changes, take queued run requests, fire due jobs. */
  const tick = (): void => {
    if (ticking) return;
    ticking = true;
    try {
      noticeChanges();
      for (const request of jobs.queued()) {
        const job = jobs.get(request.jobId);
        if (!jobs.claim(request.id, now())) continue;
        if (!job) void jobs.finishRun(request.id, request.jobId, { status: 'error', error: `job ${request.jobId} was removed before it could run`, finishedAtMs: now() });
        else if (running.has(job.id)) void jobs.finishRun(request.id, job.id, { status: 'skipped', reason: overlapReason(job), finishedAtMs: now() });
        else void launch(job, request.trigger, request.id, undefined, true);
      }
      for (const job of jobs.due(now())) {
        advance(job);
        fire(job, 'schedule', job.nextRunAtMs ?? undefined);
      }
    } catch (error) {
      log.error({ err: error }, 'Scheduler pass failed; retrying at the next poll');
    } finally {
      ticking = false;
    }
  };

  /** A job created, resumed or rescheduled here may be due before the timer: look again now. */
  const rearm = () => {
    if (!started || deps.timers === false || ticking) return;
    clearTimeout(timer);
    arm();
  };

  const arm = () => {
    if (!started || deps.timers === false) return;
    const earliest = jobs.earliestNextRunMs();
    const delay = earliest === null ? pollMs : Math.min(pollMs, Math.max(0, earliest - now()));
    timer = setTimeout(() => {
      tick();
      arm();
    }, delay);
  };

  /** At start: close runs a dead gateway left open, then catch up (or skip) fires missed while down. */
  const catchUp = () => {
    const abandoned = jobs.closeInterrupted('the gateway stopped during this run', now());
    if (abandoned > 0) log.warn(`${abandoned} job run(s) left running by a stopped gateway were closed as interrupted (each counts as a failure of its job)`);
    const expired = jobs.expireQueued('queued for a gateway that stopped before taking it; not run (run it again with switchboard cron run)', now());
    if (expired > 0) log.warn(`${expired} queued job run request(s) from before this start were not run`);
    for (const job of jobs.list()) {
      if (!job.enabled || job.nextRunAtMs === null || job.nextRunAtMs > now()) continue;
      const schedule = parseSchedule(job.schedule);
      if (!schedule.ok) continue;
      const decision = decideCatchUp({ schedule: schedule.value, policy: job.catchUp, nextRunAtMs: job.nextRunAtMs, nowMs: now(), timezone: deps.timezone, anchorMs: job.createdAtMs });
      if (decision.action === 'none') continue;
      jobs.setNextRun(job.id, decision.nextRunAtMs);
      if (decision.action === 'skip') recordSkip(job, 'catch_up', decision.reason, decision.missedAtMs);
      else void launch(job, 'catch_up', randomUUID(), decision.missedAtMs);
    }
  };

  return {
    commands,
    jobs,
    tick,
    start(): void {
      if (started) return;
      started = true;
      versions = jobs.versions();
      dataVersion = (deps.store.db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
      catchUp();
      log.info(`Scheduler started: ${jobs.counts().enabled} enabled job(s), timezone ${deps.timezone}`);
      arm();
    },
    /** Stops the timer, cancels running agent runs and scripts, waits for their records. */
    async stop(): Promise<void> {
      started = false;
      clearTimeout(timer);
      for (const entry of running.values()) entry.controller.abort();
      await deps.preRun.stop();
      await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
    /** Runs a job now in this process and resolves with the finished record (an overlap is recorded as skipped). */
    async runNow(ref: string): Promise<Checked<JobRunRow>> {
      const found = commands.find(ref);
      if (!found.ok) return found;
      if (running.has(found.value.id)) return { ok: true, value: recordSkip(found.value, 'manual', overlapReason(found.value)) };
      return { ok: true, value: await launch(found.value, 'manual', randomUUID()) };
    },
    /** Resolves when no run is in progress (tests, benchmarks). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
    snapshot(): SchedulerSnapshot {
      const counts = jobs.counts();
      return { jobs: counts.total, enabled: counts.enabled, running: [...running.keys()], nextRunAtMs: jobs.earliestNextRunMs() };
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;

/** Where a job request comes from: the console's jobs deliver to it by default, the CLI's to local files. */
export interface JobsCoreContext {
  origin: 'console' | 'cli' | string;
  /** Relative script paths resolve from here (the CLI's working directory; the scripts folder otherwise). */
  baseDir?: string;
}

/** The scheduler's commands as operations use them (`jobs.create/list/pause/resume/remove/runNow`). */
export function createJobsCore(scheduler: Scheduler, scriptsDir: string, timezone: string) {
  const { commands } = scheduler;
  const contextOf = (context: JobsCoreContext = { origin: 'console' }) =>
    ({ origin: context.origin, defaultDeliver: context.origin === 'console' ? 'origin' : 'local', baseDir: context.baseDir ?? scriptsDir });
  return {
    timezone,
    create: (request: Parameters<typeof commands.create>[0], context?: JobsCoreContext) => commands.create(request, contextOf(context)),
    edit: (ref: string, changes: Parameters<typeof commands.edit>[1], context?: JobsCoreContext) => commands.edit(ref, changes, contextOf(context)),
    list: commands.list,
    find: commands.find,
    pause: commands.pause,
    resume: commands.resume,
    remove: commands.remove,
    runNow: scheduler.runNow,
    runs: (jobId: string | undefined, limit = 20) => scheduler.jobs.runs(jobId, limit),
  };
}

export type JobsCore = ReturnType<typeof createJobsCore>;
