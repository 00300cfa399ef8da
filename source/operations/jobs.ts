import type { JobRequest } from '../scheduler/job-input.js';
import type { JobsCore } from '../scheduler/scheduler.js';
import { formatInZone, nextRuns, parseSchedule } from '../scheduler/schedule.js';
import type { JobRow, JobRunRow } from '../store/jobs.js';
import type { OperationsCore } from './core.js';
import { OperatorError } from './errors.js';
import { checked, MAX_NEXT_FIRES, optionalCount, optionalFlag, optionalText, optionalTextList, text, type Implementation, type Params } from './params.js';

export interface JobView { timezone: string; job: JobRow }

export interface JobOperations {
  list(params: { all?: boolean }): Promise<{ timezone: string; jobs: JobRow[] }>;
  show(params: { job: string }): Promise<JobView>;
  create(params: JobRequestParams): Promise<JobView>;
  edit(params: { job: string } & Partial<JobRequestParams>): Promise<JobView>;
  pause(params: { job: string }): Promise<JobView>;
  resume(params: { job: string }): Promise<JobView>;
  remove(params: { job: string }): Promise<JobView>;
  runs(params: { job?: string; limit?: number }): Promise<{ timezone: string; runs: JobRunRow[] }>;
  /** Runs a job now and waits for its result (in the gateway when one runs). */
  run(params: { job: string }): Promise<JobRunRow>;
  /** The next fires of a schedule, in the configured timezone. */
  next(params: { schedule: string; count?: number }): Promise<{ timezone: string; schedule: string; interval: boolean; times: string[] }>;
}

/** A job request (the CLI's flags, the console's form) and where it comes from. */
export interface JobRequestParams extends JobRequest {
  /** `cli` or `console`: the CLI's jobs deliver to local files by default, the console's to the console. */
  origin?: string;
  /** Relative script paths resolve from here (the CLI's working directory). */
  baseDir?: string;
}

const jobHint = 'See the jobs: switchboard cron list --all';

export function createJobOperations(core: OperationsCore): JobOperations {
  const jobs = () => core.jobs();
  const view = async (job: JobRow): Promise<JobView> => ({ timezone: (await jobs()).timezone, job });
  const find = async (params: Params, method: string) => checked(await (await jobs()).find(text(params, `job`, `jobs.${method}`)), `Cannot ${method === 'runs' ? 'list the runs of' : method} the job`, 'not_found', jobHint);
  const request = (params: Params, method: string): Partial<JobRequest> => ({
    schedule: optionalText(params, 'schedule', method), prompt: optionalText(params, 'prompt', method), name: optionalText(params, 'name', method),
    deliver: optionalText(params, 'deliver', method), skills: optionalTextList(params, 'skills', method), script: optionalText(params, 'script', method),
    catchUp: optionalText(params, 'catchUp', method),
  });
  const context = (params: Params, method: string) => ({ origin: optionalText(params, 'origin', method) ?? 'console', baseDir: optionalText(params, 'baseDir', method) });
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;

  return {
    async list(params: Params) {
      const domain = await jobs();
      return { timezone: domain.timezone, jobs: await domain.list({ all: optionalFlag(params, 'all', 'jobs.list') }) };
    },
    async show(params: Params) {
      return view(await find(params, 'show'));
    },
    async create(params: Params) {
      const draft = request(params, 'jobs.create');
      const domain = await jobs();
      const job = checked(await domain.create({ ...draft, schedule: text(params, 'schedule', 'jobs.create'), prompt: text(params, 'prompt', 'jobs.create') } as JobRequest, context(params, 'jobs.create')), 'Job not created');
      return view(job);
    },
    async edit(params: Params) {
      const job = await find(params, 'edit');
      const changes = defined(request(params, 'jobs.edit'));
      if (Object.keys(changes).length === 0) {
        throw new OperatorError('invalid', `Nothing to change for job ${job.name}`, 'Give at least one of schedule, prompt, name, deliver, skills, script, catchUp.');
      }
      return view(checked(await (await jobs()).edit(job.id, changes, context(params, 'jobs.edit')), `Job ${job.name} not changed`));
    },
    async pause(params: Params) {
      const { id } = await find(params, 'pause');
      return view(checked(await (await jobs()).pause(id), 'Cannot pause the job', 'conflict'));
    },
    async resume(params: Params) {
      const { id } = await find(params, 'resume');
      return view(checked(await (await jobs()).resume(id), 'Cannot resume the job', 'conflict'));
    },
    async remove(params: Params) {
      const { id } = await find(params, 'remove');
      return view(checked(await (await jobs()).remove(id), 'Cannot remove the job', 'not_found'));
    },
    async runs(params: Params) {
      const domain = await jobs();
      const limit = optionalCount(params, 'limit', 'jobs.runs', 20);
      if (params.job === undefined) return { timezone: domain.timezone, runs: await domain.runs(undefined, limit) };
      const ref = text(params, 'job', 'jobs.runs');
      const found = await domain.find(ref);
      const jobId = found.ok ? found.value.id : (await removedJobId(domain, ref)) ?? checked<JobRow>(found, 'Cannot list the runs of the job', 'not_found', jobHint).id;
      return { timezone: domain.timezone, runs: await domain.runs(jobId, limit) };
    },
    async run(params: Params) {
      const job = await find(params, 'run');
      // Asked for again inside the runtime: a CLI command's own process runs the job in the whole gateway.
      const work = async () => checked(await (await jobs()).runNow(job.id), `Job ${job.name} did not run`);
      return core.withRuntime ? core.withRuntime(work) : work();
    },
    async next(params: Params) {
      const schedule = checked(parseSchedule(text(params, 'schedule', 'jobs.next')), 'Not a schedule');
      const count = optionalCount(params, 'count', 'jobs.next', 5, MAX_NEXT_FIRES);
      const timezone = core.config().current().timezone;
      return {
        timezone, schedule: schedule.text, interval: schedule.kind === 'every',
        times: nextRuns(schedule, Date.now(), timezone, count).map((atMs) => formatInZone(atMs, timezone)),
      };
    },
  } satisfies Implementation<JobOperations> as unknown as JobOperations;
}

/**
 * A removed job keeps its runs: its id, or a unique id prefix (4+ characters, as `cron runs` prints
 * them), still names it there. The store has no prefix query, so a prefix reads the whole history.
 */
async function removedJobId(domain: JobsCore, ref: string): Promise<string | undefined> {
  const wanted = ref.trim();
  if ((await domain.runs(wanted, 1)).length > 0) return wanted;
  if (wanted.length < 4) return undefined;
  const ids = new Set((await domain.runs(undefined, Number.MAX_SAFE_INTEGER)).map((run) => run.jobId).filter((id) => id.startsWith(wanted)));
  return ids.size === 1 ? [...ids][0] : undefined;
}

/** How job times are written for people (the CLI's tables use it too). */
export { formatInZone } from '../scheduler/schedule.js';
