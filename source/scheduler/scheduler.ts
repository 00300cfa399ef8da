import { lazyCrypto } from '../infra/lazy-builtins.js';
import type { Logger } from 'pino';
import type { RunAgent } from '../agent/types.js';
import type { Deliver } from '../delivery/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { JobBackend } from '../store/async-domains.js';
import type { JobRow, JobRunRow, JobRunTrigger, RunOutcome } from '../store/jobs.js';
import { decideCatchUp } from './catch-up.js';
import { createExclusive, createJobCommands } from './job-commands.js';
import type { SkillsCheck } from '../agent/skills-check.js';
import { executeJob } from './job-execution.js';
import type { Checked } from './job-input.js';
import type { PreRunWorkers } from './pre-run-workers.js';
import { parseSchedule } from './schedule.js';

export interface SchedulerDeps {
  jobs: JobBackend;
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
  /** Checks that a new job's skills are installed and usable. */
  checkSkills?: SkillsCheck;
  /** false: no timer loop; tests with a fake clock drive it with `tick()`. */
  timers?: boolean;
  /**
   * How jobs written by another process (the CLI with no gateway, later another node) are noticed.
   * Decision: the backend stays the only thing the scheduler knows of the store, so a cheap check
   * that is specific to one database is injected rather than read from it. Given, it is asked at
   * each pass and true means "something may have changed since you last asked": only then are the
   * job versions (id -> updated time) read again. The gateway gives SQLite's `PRAGMA data_version`
   * (`sqliteExternalChanges`), which moves on other connections' commits only. Without it
   * (PostgreSQL for now) the versions are read at every pass, that is at most every `pollMs`: one
   * small query; the cluster step replaces that with LISTEN/NOTIFY.
   */
  externalChanges?: () => boolean;
  /**
   * Cluster mode: tells the other nodes that this process changed a job (created, edited, removed,
   * or ran it: its last status), so they read the jobs again at once (`othersChanged`) instead of at
   * their next poll. The poll stays, for a notice lost while the channel reconnected.
   */
  announce?: () => void;
}

export interface SchedulerSnapshot {
  jobs: number;
  enabled: number;
  running: string[];
  nextRunAtMs: number | null;
}

/** A run request queued longer ago than this at a start was left by gateways that are gone (see catchUp). */
export const STALE_REQUEST_MS = 60_000;

/** How often the scheduler looks for changes written by another process (it hears its own at once). */
export const RECOVERY_SWEEP_MS = 5_000;

/**
 * The scheduler: croner times (via the stored next run), Bree workers for pre-run scripts, agent runs
 * in this process. One timer sleeps until the earliest next run, at most `pollMs`, so changes from
 * the CLI (another process) take effect within a poll.
 *
 * Every store call is asynchronous (a round trip on PostgreSQL). What is read synchronously, the
 * console's `snapshot()` on every frame and `known()`, comes from the jobs this process keeps in
 * memory: loaded at start, updated on each change made here, and on changes of other processes
 * when a pass notices them (so those reach it later, within a poll; cluster step: LISTEN/NOTIFY).
 */
export function createScheduler(deps: SchedulerDeps) {
  const now = deps.now ?? Date.now;
  // A recovery sweep only: changes made through operations re-arm the timer at once (rearm below);
  // the sweep finds what another process wrote while it believed no gateway ran.
  const pollMs = deps.pollMs ?? RECOVERY_SWEEP_MS;
  const { jobs } = deps;
  const log = deps.logger.child({ component: 'scheduler' });
  const running = new Map<string, { controller: AbortController; done: Promise<JobRunRow> }>();
  /** Every job as this process knows it (see above). */
  const known = new Map<string, JobRow>();
  const exclusive = createExclusive();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let pass: Promise<void> | undefined;

  const remember = (jobId: string, job: JobRow | null | undefined) => {
    if (job) known.set(jobId, job);
    else known.delete(jobId);
  };
  const emitChanged = (jobId: string, change: 'created' | 'updated' | 'removed', job: JobRow | null) => {
    remember(jobId, job);
    deps.events?.emit('job.changed', { jobId, change, job });
    deps.announce?.();
    rearm();
  };
  const commands = createJobCommands({ jobs, timezone: deps.timezone, now, onChange: emitChanged, checkDeliver: deps.checkDeliver, checkSkills: deps.checkSkills, exclusive });
  /** A run started and not awaited (a fire, a claimed request): a store fault is logged, not thrown into nowhere. */
  const inBackground = (work: Promise<unknown>) => void work.catch((error: unknown) => log.error({ err: error }, 'A job run could not be recorded (store fault); see the run history'));

  /** Starts one run of `job` (the caller has checked overlap) and returns its finished record. */
  const launch = (job: JobRow, trigger: JobRunTrigger, runId: string, scheduledAtMs?: number, claimed = false): Promise<JobRunRow> => {
    const controller = new AbortController();
    const done = (async () => {
      try {
        const startedAtMs = now();
        // Awaited: the run row exists before anything (its finish, a listener) refers to it.
        if (!claimed) await jobs.addRun({ id: runId, jobId: job.id, jobName: job.name, trigger, status: 'running', scheduledAtMs, atMs: startedAtMs });
        deps.events?.emit('job.started', { jobId: job.id, jobName: job.name, runId, trigger, atMs: startedAtMs });
        log.info({ jobId: job.id, runId, trigger }, `Job ${job.name} (${job.id}) started (${trigger})`);
        const outcome = await executeJob({ ...deps, now, logger: log }, job, runId, controller.signal)
          .catch((error: unknown): RunOutcome => ({ status: 'error', error: `internal error: ${(error as Error).message}`, finishedAtMs: now() }));
        await jobs.finishRun(runId, job.id, outcome); // kept on SQLite: waits out a lock held elsewhere rather than lose the result
        return outcome;
      } finally {
        running.delete(job.id);
      }
    })().then(async (outcome) => {
      emitChanged(job.id, 'updated', (await jobs.get(job.id)) ?? null); // its last status and failure count
      const level = outcome.status === 'error' || outcome.status === 'delivery_failed' ? 'warn' : 'info';
      log[level]({ jobId: job.id, runId, status: outcome.status, error: outcome.error, reason: outcome.reason }, `Job ${job.name} (${job.id}) finished: ${outcome.status}${outcome.error ? ` - ${outcome.error}` : ''}`);
      deps.events?.emit('job.finished', {
        jobId: job.id, jobName: job.name, runId, trigger, status: outcome.status, output: outcome.output ?? '',
        error: outcome.error ?? null, reason: outcome.reason ?? null, delivery: outcome.delivery ?? null, atMs: outcome.finishedAtMs,
      });
      return (await jobs.getRun(runId))!;
    });
    running.set(job.id, { controller, done });
    return done;
  };

  /** Closes a run without running it (skipped, or failed); its job's last status changes in memory too (no job.changed, as before). */
  const closeUnrun = async (runId: string, jobId: string, outcome: RunOutcome) => {
    await jobs.finishRun(runId, jobId, outcome);
    if (known.has(jobId)) remember(jobId, await jobs.get(jobId));
  };

  /** A fire that cannot run: recorded in the history as `skipped` with its reason. */
  const recordSkip = async (job: JobRow, trigger: JobRunTrigger, reason: string, scheduledAtMs?: number): Promise<JobRunRow> => {
    const runId = lazyCrypto().randomUUID();
    const atMs = now();
    await jobs.addRun({ id: runId, jobId: job.id, jobName: job.name, trigger, status: 'running', scheduledAtMs, atMs });
    await closeUnrun(runId, job.id, { status: 'skipped', reason, finishedAtMs: atMs });
    log.info({ jobId: job.id, runId, trigger }, `Job ${job.name} (${job.id}) skipped: ${reason}`);
    deps.events?.emit('job.finished', { jobId: job.id, jobName: job.name, runId, trigger, status: 'skipped', output: '', error: null, reason, delivery: null, atMs });
    return (await jobs.getRun(runId))!;
  };

  const overlapReason = (job: JobRow) => `job ${job.name} (${job.id}) was still running at this fire (overlap)`;

  const fire = async (job: JobRow, trigger: JobRunTrigger, scheduledAtMs?: number) => {
    if (running.has(job.id)) await recordSkip(job, trigger, overlapReason(job), scheduledAtMs);
    else inBackground(launch(job, trigger, lazyCrypto().randomUUID(), scheduledAtMs));
  };

  /**
   * Takes the fire at `slotMs` of `job` by moving its next run to `nextRunAtMs` in the store, a
   * compare-and-set: of the nodes (and processes) seeing one slot due, one wins and fires it. A loser
   * reads the job again, so its memory (and its timer) moves on to the slot the winner set.
   */
  const takeSlot = async (job: JobRow, slotMs: number, nextRunAtMs: number | null): Promise<boolean> => {
    const won = await jobs.takeSlot(job.id, slotMs, nextRunAtMs);
    emitChanged(job.id, 'updated', (await jobs.get(job.id)) ?? null);
    return won;
  };

  /**
   * Jobs this process believes due that the store does not (another node took their slot, and a
   * new next run does not change `updated_at_ms`): read again, or the timer would spin on them.
   */
  const refreshStale = async (dueIds: Set<string>, nowMs: number) => {
    for (const job of [...known.values()]) {
      if (!job.enabled || job.nextRunAtMs === null || job.nextRunAtMs > nowMs || dueIds.has(job.id)) continue;
      emitChanged(job.id, 'updated', (await jobs.get(job.id)) ?? null);
    }
  };

  /**
   * Jobs changed by another process: emit job.changed and remember them. Run alone (`exclusive`):
   * a change of this process between its write and its own job.changed would look foreign.
   */
  const noticeChanges = () => exclusive(async () => {
    if (deps.externalChanges && !deps.externalChanges()) return;
    const latest = await jobs.versions();
    for (const [id, updatedAtMs] of latest) {
      const before = known.get(id);
      if (before !== undefined && before.updatedAtMs === updatedAtMs) continue;
      const job = (await jobs.get(id)) ?? null;
      remember(id, job);
      deps.events?.emit('job.changed', { jobId: id, change: before === undefined ? 'created' : 'updated', job });
    }
    for (const id of [...known.keys()]) {
      if (latest.has(id)) continue;
      known.delete(id);
      deps.events?.emit('job.changed', { jobId: id, change: 'removed', job: null });
    }
  });

  /** Queued run requests: several processes may claim one, one claim wins. */
  const takeQueued = async () => {
    for (const request of await jobs.queued()) {
      const job = await jobs.get(request.jobId);
      if (!(await jobs.claim(request.id, now()))) continue;
      if (!job) await jobs.finishRun(request.id, request.jobId, { status: 'error', error: `job ${request.jobId} was removed before it could run`, finishedAtMs: now() });
      else if (running.has(job.id)) await closeUnrun(request.id, job.id, { status: 'skipped', reason: overlapReason(job), finishedAtMs: now() });
      else inBackground(launch(job, request.trigger, request.id, undefined, true));
    }
  };

  /** One pass: notice changes, take queued run requests, fire due jobs. A pass asked for during one waits for it. */
  const tick = (): Promise<void> => {
    pass ??= (async () => {
      try {
        await noticeChanges();
        await takeQueued();
        const nowMs = now();
        const due = await jobs.due(nowMs);
        for (const job of due) {
          const slotMs = job.nextRunAtMs!;
          if (await takeSlot(job, slotMs, commands.nextRunOf(job, now()))) await fire(job, 'schedule', slotMs);
        }
        await refreshStale(new Set(due.map((job) => job.id)), nowMs);
      } catch (error) {
        log.error({ err: error }, 'Scheduler pass failed; retrying at the next poll');
      } finally {
        pass = undefined;
      }
    })();
    return pass;
  };

  /** A job created, resumed or rescheduled here may be due before the timer: look again now. */
  const rearm = () => {
    if (!started || deps.timers === false || pass) return;
    arm();
  };

  const earliestNextRunMs = (): number | null => {
    let earliest: number | null = null;
    for (const job of known.values()) {
      if (job.enabled && job.nextRunAtMs !== null && (earliest === null || job.nextRunAtMs < earliest)) earliest = job.nextRunAtMs;
    }
    return earliest;
  };

  const arm = () => {
    if (!started || deps.timers === false) return;
    clearTimeout(timer);
    const earliest = earliestNextRunMs();
    const delay = earliest === null ? pollMs : Math.min(pollMs, Math.max(0, earliest - now()));
    timer = setTimeout(() => void tick().then(arm), delay);
  };

  /** Reads every job into memory (start; a process that never starts reads it before showing jobs). */
  const load = () => exclusive(async () => {
    deps.externalChanges?.(); // a baseline: what changes from here on is noticed, what came before is read now
    const all = await jobs.list();
    known.clear();
    for (const job of all) known.set(job.id, job);
  });

  /**
   * At start: close runs this node left open when it died, expire stale run requests, then catch up
   * (or skip) fires missed while no node ran.
   *
   * Decision on queued run requests: only those queued more than `STALE_REQUEST_MS` ago are expired.
   * A live node takes a request within a pass (at most `pollMs`), so one that old was left by
   * gateways that are gone and must not run late; a younger one may be another live node's to take
   * (a cluster), or this node's in its first pass, and is left for any node to claim.
   *
   * Catch-up takes each missed slot with the same compare-and-set as a fire (`takeSlot`): when every
   * node starts at once, one of them catches up (or records the skip of) each job's missed slot.
   */
  const catchUp = async () => {
    const abandoned = await jobs.closeInterrupted('the gateway stopped during this run', now());
    if (abandoned > 0) log.warn(`${abandoned} job run(s) left running by a stopped gateway were closed as interrupted (each counts as a failure of its job)`);
    const expired = await jobs.expireQueued('queued for a gateway that stopped before taking it; not run (run it again with switchboard cron run)', now(), now() - STALE_REQUEST_MS);
    if (expired > 0) log.warn(`${expired} queued job run request(s) older than ${STALE_REQUEST_MS / 1000} s were not run`);
    await load(); // after closing: the jobs' last status shows the interrupted runs
    for (const job of [...known.values()]) {
      if (!job.enabled || job.nextRunAtMs === null || job.nextRunAtMs > now()) continue;
      const schedule = parseSchedule(job.schedule);
      if (!schedule.ok) continue;
      const decision = decideCatchUp({ schedule: schedule.value, policy: job.catchUp, nextRunAtMs: job.nextRunAtMs, nowMs: now(), timezone: deps.timezone, anchorMs: job.createdAtMs });
      if (decision.action === 'none') continue;
      if (!(await takeSlot(job, job.nextRunAtMs, decision.nextRunAtMs))) continue; // another node caught it up
      if (decision.action === 'skip') await recordSkip(job, 'catch_up', decision.reason, decision.missedAtMs);
      else inBackground(launch(job, 'catch_up', lazyCrypto().randomUUID(), decision.missedAtMs));
    }
  };

  return {
    commands,
    jobs,
    tick,
    load,
    async start(): Promise<void> {
      if (started) return;
      started = true;
      await catchUp();
      log.info(`Scheduler started: ${[...known.values()].filter((job) => job.enabled).length} enabled job(s), timezone ${deps.timezone}`);
      arm();
    },
    /** Stops the timer, cancels running agent runs and scripts, waits for their records. */
    async stop(): Promise<void> {
      started = false;
      clearTimeout(timer);
      await pass; // a pass under way may still start runs: they are cancelled below with the others
      for (const entry of running.values()) entry.controller.abort();
      await deps.preRun.stop();
      await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
    /**
     * Another node changed a job (its notice): a pass now, after the one under way if any (that one
     * may have read the jobs before the change), so consoles here show it within moments.
     */
    othersChanged(): void {
      if (!started || deps.timers === false) return;
      void (pass ?? Promise.resolve()).then(() => tick()).then(() => { if (started) arm(); });
    },
    /** Runs a job now in this process and resolves with the finished record (an overlap is recorded as skipped). */
    async runNow(ref: string): Promise<Checked<JobRunRow>> {
      const found = await commands.find(ref);
      if (!found.ok) return found;
      if (running.has(found.value.id)) return { ok: true, value: await recordSkip(found.value, 'manual', overlapReason(found.value)) };
      return { ok: true, value: await launch(found.value, 'manual', lazyCrypto().randomUUID()) };
    },
    /** Resolves when no run is in progress (tests, benchmarks). */
    async idle(): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
    /** The jobs this process knows, in creation order (memory: see above). */
    known(): JobRow[] {
      return [...known.values()].sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    /** From memory: the console reads it on every frame. */
    snapshot(): SchedulerSnapshot {
      const jobsKnown = [...known.values()];
      return { jobs: jobsKnown.length, enabled: jobsKnown.filter((job) => job.enabled).length, running: [...running.keys()], nextRunAtMs: earliestNextRunMs() };
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

/**
 * The scheduler's commands as operations use them (`jobs.create/list/pause/resume/remove/runNow`),
 * all asynchronous; `known()` is the synchronous list the console's state is built from (memory,
 * filled by the scheduler's start or by `load()`).
 */
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
    redelivered: commands.redelivered,
    runNow: scheduler.runNow,
    runs: (jobId: string | undefined, limit = 20) => scheduler.jobs.runs(jobId, limit),
    known: scheduler.known,
    load: scheduler.load,
    othersChanged: scheduler.othersChanged,
  };
}

export type JobsCore = ReturnType<typeof createJobsCore>;
