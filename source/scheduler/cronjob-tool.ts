import type { ToolDefinition, ToolOutput } from '../agent/types.js';
import type { JobRow, JobRunRow } from '../store/jobs.js';
import type { Checked } from './job-input.js';
import type { Scheduler } from './scheduler.js';
import { ACCEPTED_FORMS, formatInZone } from './schedule.js';

export interface CronjobToolDeps {
  scheduler: Pick<Scheduler, 'commands' | 'runNow'>;
  timezone: string;
  /** $SWITCHBOARD_HOME/scripts: the only place the agent's job scripts may come from. */
  scriptsDir: string;
}

const actions = ['create', 'list', 'pause', 'resume', 'remove', 'run'] as const;

/** The agent's way to manage scheduled jobs, with the same checks as `switchboard cron`. */
export function createCronjobTool(deps: CronjobToolDeps): ToolDefinition {
  const { commands } = deps.scheduler;
  return {
    name: 'cronjob',
    source: 'builtin',
    description:
      'Manage scheduled jobs: create, list, pause, resume, remove, or run one now. A job runs a prompt on a schedule and ' +
      `delivers the answer (default: back to where this conversation came from). Schedules: ${ACCEPTED_FORMS}. ` +
      `Times are in ${deps.timezone}. A run whose answer contains the word SILENT in square brackets is not delivered (use it when there is nothing to report). ` +
      `A script (optional) must be an executable inside ${deps.scriptsDir}; its output is added to the prompt, and empty output skips the run.`,
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...actions] },
        schedule: { type: 'string', description: 'create: "every 30m", "0 9 * * 1-5", ...' },
        prompt: { type: 'string', description: 'create: what the agent should do at each run' },
        name: { type: 'string', description: 'create: a short name (default: start of the prompt)' },
        deliver: { type: 'string', description: 'create: origin (default), local, log, or <kind>:<address>' },
        skills: { type: 'array', items: { type: 'string' }, description: 'create: skills to load' },
        script: { type: 'string', description: `create: pre-run script, relative to ${deps.scriptsDir}` },
        catch_up: { type: 'string', enum: ['once', 'skip'], description: 'create: what to do with a fire missed while the gateway was down' },
        job: { type: 'string', description: 'pause/resume/remove/run: the job id or name' },
        all: { type: 'boolean', description: 'list: include paused jobs' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    annotations: { title: 'Scheduled jobs', destructiveHint: false, openWorldHint: false },
    async execute(args, context): Promise<ToolOutput> {
      const action = String(args.action ?? '');
      const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
      const ref = text(args.job) ?? '';
      switch (action) {
        case 'create': {
          const skills = Array.isArray(args.skills) ? args.skills.map(String) : undefined;
          const created = await commands.create(
            { schedule: text(args.schedule) ?? '', prompt: text(args.prompt) ?? '', name: text(args.name), deliver: text(args.deliver), skills, script: text(args.script), catchUp: text(args.catch_up) },
            { origin: context.origin, defaultDeliver: 'origin', baseDir: deps.scriptsDir, scriptsRoot: deps.scriptsDir },
          );
          return answer(created, (job) => `Created job ${describe(job, deps.timezone)}`);
        }
        case 'list': {
          const list = await commands.list({ all: args.all === true });
          return { text: list.length === 0 ? 'No jobs.' : list.map((job) => describe(job, deps.timezone)).join('\n'), structured: list };
        }
        case 'pause':
          return answer(await commands.pause(ref), (job) => `Paused job ${job.name} (${job.id}).`);
        case 'resume':
          return answer(await commands.resume(ref), (job) => `Resumed job ${describe(job, deps.timezone)}`);
        case 'remove':
          return answer(await commands.remove(ref), (job) => `Removed job ${job.name} (${job.id}).`);
        case 'run':
          return answer(await deps.scheduler.runNow(ref), describeRun);
        default:
          return { text: `Unknown action "${action}": use one of ${actions.join(', ')}.`, isError: true };
      }
    },
  };
}

function answer<T>(result: Checked<T>, say: (value: T) => string): ToolOutput {
  return result.ok ? { text: say(result.value), structured: result.value } : { text: result.reason, isError: true };
}

export function describe(job: JobRow, timezone: string): string {
  const next = job.enabled ? (job.nextRunAtMs === null ? 'never' : formatInZone(job.nextRunAtMs, timezone)) : 'paused';
  return `${job.name} (${job.id}): "${job.schedule}", next run ${next}, deliver ${job.deliver}`;
}

function describeRun(run: JobRunRow): string {
  const detail = run.error ?? run.reason ?? '';
  return `Run ${run.id} of ${run.jobName}: ${run.status}${detail ? ` - ${detail}` : ''}${run.output ? `\n\n${run.output}` : ''}`;
}
