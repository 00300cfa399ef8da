import type { SkillsCheck } from '../agent/skills-check.js';
import { deliveredOnRetry } from '../delivery/on-retry.js';
import { lazyCrypto } from '../infra/lazy-builtins.js';
import { slugify } from '../infra/slug.js';
import type { JobBackend } from '../store/async-domains.js';
import type { JobRow } from '../store/jobs.js';
import { checkJobRequest, type Checked, type JobRequest, type JobRequestContext } from './job-input.js';
import { nextRunAfter, parseSchedule } from './schedule.js';

export interface JobCommandsDeps {
  jobs: JobBackend;
  timezone: string;
  now: () => number;
  /** Checks `deliver` against the configured platforms (jobDeliverCheck). */
  checkDeliver?: (target: string) => Checked<unknown>;
  /** Checks that the skills a job names are installed and usable; without it any skill name is taken. */
  checkSkills?: SkillsCheck;
  /** Called after each change this process made (the gateway emits job.changed). */
  onChange?: (jobId: string, change: 'created' | 'updated' | 'removed', job: JobRow | null) => void;
  /** Runs each change alone; the scheduler shares it so that its look for others' changes never interleaves with one. */
  exclusive?: Exclusive;
}


/** Runs `work` once every earlier piece of work given to it has settled. */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** One change at a time: a check (a free name, the job's state) stays true until its write. */
export function createExclusive(): Exclusive {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const result = tail.then(work);
    tail = result.catch(() => {});
    return result;
  };
}

/**
 * Create, find, pause, resume and remove jobs: the same rules for the CLI, the cronjob tool and the
 * console. They only write the store; a running gateway notices within a poll. Every store call is a
 * round trip on PostgreSQL, so the commands are asynchronous; the changes of this process run one at
 * a time (`exclusive`), as they did when the store answered synchronously.
 */
export function createJobCommands(deps: JobCommandsDeps) {
  const { jobs } = deps;
  const exclusive = deps.exclusive ?? createExclusive();

  const nextRunOf = (job: Pick<JobRow, 'schedule' | 'createdAtMs'>, afterMs: number): number | null => {
    const schedule = parseSchedule(job.schedule);
    return schedule.ok ? nextRunAfter(schedule.value, afterMs, deps.timezone, job.createdAtMs) : null;
  };

  /**
   * An id, a unique id prefix (4+ characters) or a name (as written or slugified); a name shared by
   * several jobs (possible only for jobs from before names were unique) is refused with their ids.
   */
  const find = async (ref: string): Promise<Checked<JobRow>> => {
    const wanted = ref.trim();
    const exact = await jobs.get(wanted);
    if (exact) return { ok: true, value: exact };
    let named = await jobs.byName(wanted);
    if (named.length === 0) named = await jobs.byName(slugify(wanted)); // "Check the disk" finds check-the-disk
    if (named.length === 1) return { ok: true, value: named[0]! };
    if (named.length > 1) {
      return { ok: false, reason: `${named.length} jobs are named "${wanted}" (${named.map((job) => job.id).join(', ')}): use the id` };
    }
    if (wanted.length >= 4) {
      const prefixed = (await jobs.list()).filter((job) => job.id.startsWith(wanted));
      if (prefixed.length === 1) return { ok: true, value: prefixed[0]! };
    }
    // No hint here: the operations add the operator's, the cronjob tool has its own list action.
    return { ok: false, reason: `no job with id or name "${wanted}"` };
  };

  /**
   * Job names are unique (`cron run <name>` must mean one job): the store checks and writes in one
   * step, so of two processes or nodes giving one name at once, one wins and the other gets this.
   */
  const nameTaken = (name: string, holderId: string): { ok: false; reason: string } => ({ ok: false, reason: `a job named "${name}" already exists (${holderId}): choose another name` });

  const changed = (job: JobRow | null, id: string, change: 'created' | 'updated' | 'removed') => deps.onChange?.(id, change, job);
  const checkSkills = async (names: string[]): Promise<Checked<unknown>> => (names.length === 0 || !deps.checkSkills ? { ok: true, value: undefined } : deps.checkSkills(names));

  return {
    find,
    nextRunOf,
    create: (request: JobRequest, context: JobRequestContext): Promise<Checked<JobRow>> => exclusive(async () => {
      const checked = checkJobRequest(request, { checkDeliver: deps.checkDeliver, ...context });
      if (!checked.ok) return checked;
      const skills = await checkSkills(checked.value.skills);
      if (!skills.ok) return skills;
      const createdAtMs = deps.now();
      const draft = checked.value;
      const id = await uniqueId(jobs);
      const nextRunAtMs = nextRunAfter(draft.schedule, createdAtMs, deps.timezone, createdAtMs);
      const holder = await jobs.insert({
        id, name: draft.name, schedule: draft.schedule.text, prompt: draft.prompt, deliver: draft.deliver, origin: draft.origin,
        skills: draft.skills, script: draft.script, catchUp: draft.catchUp, enabled: true, createdAtMs, nextRunAtMs,
      });
      if (holder !== undefined) return nameTaken(draft.name, holder);
      const job = (await jobs.get(id))!;
      changed(job, id, 'created');
      return { ok: true, value: job };
    }),
    /** Enabled jobs, or all with `all`. */
    async list(options: { all?: boolean } = {}): Promise<JobRow[]> {
      const every = await jobs.list();
      return options.all ? every : every.filter((job) => job.enabled);
    },
    pause: (ref: string): Promise<Checked<JobRow>> => exclusive(async () => {
      const found = await find(ref);
      if (!found.ok) return found;
      if (!found.value.enabled) return { ok: false, reason: `job ${found.value.name} (${found.value.id}) is already paused` };
      await jobs.setEnabled(found.value.id, false, null, deps.now());
      const job = (await jobs.get(found.value.id))!;
      changed(job, job.id, 'updated');
      return { ok: true, value: job };
    }),
    resume: (ref: string): Promise<Checked<JobRow>> => exclusive(async () => {
      const found = await find(ref);
      if (!found.ok) return found;
      if (found.value.enabled) return { ok: false, reason: `job ${found.value.name} (${found.value.id}) is not paused` };
      const now = deps.now();
      await jobs.setEnabled(found.value.id, true, nextRunOf(found.value, now), now);
      const job = (await jobs.get(found.value.id))!;
      changed(job, job.id, 'updated');
      return { ok: true, value: job };
    }),
    /** Changes some fields; everything is checked again as at creation. A new schedule gets a new next run. */
    edit: (ref: string, changes: Partial<JobRequest>, context: JobRequestContext): Promise<Checked<JobRow>> => exclusive(async () => {
      const found = await find(ref);
      if (!found.ok) return found;
      const job = found.value;
      const merged: JobRequest = {
        schedule: changes.schedule ?? job.schedule, prompt: changes.prompt ?? job.prompt, name: changes.name ?? job.name,
        deliver: changes.deliver ?? job.deliver, skills: changes.skills ?? job.skills, catchUp: changes.catchUp ?? job.catchUp,
        script: changes.script ?? job.script ?? undefined,
      };
      const checked = checkJobRequest(merged, { checkDeliver: deps.checkDeliver, ...context, origin: job.origin });
      if (!checked.ok) return checked;
      // Only skills this edit gives: one removed since creation is the run's warning, and does not block changing the schedule.
      if (changes.skills !== undefined) {
        const skills = await checkSkills(checked.value.skills);
        if (!skills.ok) return skills;
      }
      // A name from before names were slugs stays as it is until the edit gives a new one.
      const draft = changes.name === undefined ? { ...checked.value, name: job.name } : checked.value;
      const now = deps.now();
      const rescheduled = draft.schedule.text !== job.schedule;
      const nextRunAtMs = !job.enabled ? null : rescheduled ? nextRunAfter(draft.schedule, now, deps.timezone, job.createdAtMs) : job.nextRunAtMs;
      const holder = await jobs.update(job.id, { name: draft.name, schedule: draft.schedule.text, prompt: draft.prompt, deliver: draft.deliver, skills: draft.skills, script: draft.script, catchUp: draft.catchUp, nextRunAtMs }, now);
      if (holder !== undefined) return nameTaken(draft.name, holder);
      const updated = (await jobs.get(job.id))!;
      changed(updated, job.id, 'updated');
      return { ok: true, value: updated };
    }),
    /**
     * A run whose delivery failed, sent since by `deliveries retry`: the run becomes ok (the first
     * failure kept in its detail), and so does its job's last status while it is the job's last run.
     * A run that failed itself, or any other, stays as it is.
     */
    redelivered: (runId: string, detail: string): Promise<void> => exclusive(async () => {
      const run = await jobs.getRun(runId);
      if (run?.status !== 'delivery_failed') return;
      if (await jobs.redelivered(runId, deliveredOnRetry(detail, run.deliveryDetail), deps.now())) changed((await jobs.get(run.jobId)) ?? null, run.jobId, 'updated');
    }),
    remove: (ref: string): Promise<Checked<JobRow>> => exclusive(async () => {
      const found = await find(ref);
      if (!found.ok) return found;
      await jobs.remove(found.value.id);
      changed(null, found.value.id, 'removed');
      return { ok: true, value: found.value };
    }),
  };
}

export type JobCommands = ReturnType<typeof createJobCommands>;

/** Eight hex characters; retried on the (rare) collision. */
async function uniqueId(jobs: JobBackend): Promise<string> {
  for (;;) {
    const id = lazyCrypto().randomBytes(4).toString('hex');
    if (!(await jobs.get(id))) return id;
  }
}
