import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { resolveConfig, type ResolvedConfig } from '../config/load.js';
import { runningGateway } from '../gateway/lock.js';
import type { Checked } from '../scheduler/job-input.js';
import { jobDeliverCheck } from '../scheduler/deliver-check.js';
import { createJobCommands, type JobCommands } from '../scheduler/job-commands.js';
import { resolveCron } from '../scheduler/resolve-cron.js';
import { formatInZone, nextRuns, parseSchedule } from '../scheduler/schedule.js';
import type { Logger } from '../infra/logger.js';
import type { Store } from '../store/database.js';
import { createJobStore, type JobStore } from '../store/jobs.js';
import { homeOf, loadConfigFor, withCliCore } from './context.js';
import { formatJob, formatJobTable, formatRunResult, formatRunTable, jobJson } from './cron-format.js';
import { print, say } from './output.js';

interface CronContext {
  config: ResolvedConfig;
  store: Store;
  logger: Logger;
  jobs: JobStore;
  commands: JobCommands;
  timezone: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `switchboard cron`: scheduled jobs. Changes go to the store; a running gateway picks them up within a second. */
export function cronCommand(): Command {
  const cron = new Command('cron').description('Scheduled jobs: create, list, show, edit, pause, resume, remove, runs, run, next');

  cron
    .command('create <schedule> <prompt>')
    .description('Create a job: "every 30m", "every 2h", "every 1d" or five-field cron ("0 9 * * 1-5"); prints it with its next run')
    .option('--name <name>', 'a short name (default: the start of the prompt)')
    .option('--deliver <target>', 'where answers go: local (default), log, origin, or <kind>:<address>')
    .option('--skill <name>', 'load a skill at each run (repeatable)', collect, [] as string[])
    .option('--skills <a,b>', 'skills as a comma-separated list')
    .option('--script <path>', 'executable run before each run; its output goes into the prompt, empty output skips the run')
    .option('--catch-up <policy>', 'a fire missed while no gateway ran: once (default) or skip')
    .option('--json', 'machine-readable output')
    .action((schedule: string, prompt: string, options: { name?: string; deliver?: string; skill: string[]; skills?: string; script?: string; catchUp?: string; json?: boolean }, command: Command) => {
      return withCron(command, (context) => {
        const skills = [...options.skill, ...(options.skills ?? '').split(',')].map((skill) => skill.trim()).filter(Boolean);
        const job = check(context.commands.create(
          { schedule, prompt, name: options.name, deliver: options.deliver, skills, script: options.script, catchUp: options.catchUp },
          { origin: 'cli', defaultDeliver: 'local', baseDir: process.cwd() },
        ), 'Job not created');
        if (options.json) print(JSON.stringify(jobJson(job, context.timezone), undefined, 2));
        else print(`Created job ${formatJob(job, context.timezone, context.config.home.root)}`);
        gatewayNote(context);
      });
    });

  cron
    .command('list')
    .description('Enabled jobs with their next run (--all adds paused ones)')
    .option('--all', 'include paused jobs')
    .option('--json', 'machine-readable output')
    .action((options: { all?: boolean; json?: boolean }, command: Command) => {
      return withCron(command, (context) => {
        const jobs = context.commands.list({ all: options.all });
        if (options.json) return print(JSON.stringify(jobs.map((job) => jobJson(job, context.timezone)), undefined, 2));
        if (jobs.length === 0) return say(options.all ? 'No jobs yet: switchboard cron create "<schedule>" "<prompt>"' : 'No enabled jobs (cron list --all shows paused ones).');
        print(formatJobTable(jobs, context.timezone));
      });
    });

  cron
    .command('show <job>')
    .description('One job in full (id or name)')
    .option('--json', 'machine-readable output')
    .action((ref: string, options: { json?: boolean }, command: Command) => {
      return withCron(command, (context) => {
        const job = check(context.commands.find(ref), 'Cannot show the job');
        if (options.json) return print(JSON.stringify(jobJson(job, context.timezone), undefined, 2));
        print(formatJob(job, context.timezone, context.config.home.root));
      });
    });

  cron
    .command('edit <job>')
    .description('Change a job (id or name); only the options given change; a new schedule gets a new next run')
    .option('--schedule <schedule>', 'a new schedule')
    .option('--prompt <prompt>', 'a new prompt')
    .option('--name <name>', 'a new name')
    .option('--deliver <target>', 'a new target')
    .option('--skill <name>', 'replace the skills (repeatable)', collect, [] as string[])
    .option('--skills <a,b>', 'replace the skills with a comma-separated list ("" for none)')
    .option('--script <path>', 'a new pre-run script ("" removes it)')
    .option('--catch-up <policy>', 'once or skip')
    .option('--json', 'machine-readable output')
    .action((ref: string, options: { schedule?: string; prompt?: string; name?: string; deliver?: string; skill: string[]; skills?: string; script?: string; catchUp?: string; json?: boolean }, command: Command) => {
      return withCron(command, (context) => {
        const skills = options.skill.length > 0 || options.skills !== undefined
          ? [...options.skill, ...(options.skills ?? '').split(',')].map((skill) => skill.trim()).filter(Boolean)
          : undefined;
        const changes = { schedule: options.schedule, prompt: options.prompt, name: options.name, deliver: options.deliver, skills, script: options.script, catchUp: options.catchUp };
        if (Object.values(changes).every((value) => value === undefined)) {
          throw new ConfigError('NOTHING_TO_EDIT', `Nothing to change for ${ref}`, 'Give at least one of --schedule, --prompt, --name, --deliver, --skill/--skills, --script, --catch-up.');
        }
        const job = check(context.commands.edit(ref, changes, { origin: 'cli', defaultDeliver: 'local', baseDir: process.cwd() }), 'Job not changed');
        if (options.json) print(JSON.stringify(jobJson(job, context.timezone), undefined, 2));
        else print(`Changed ${formatJob(job, context.timezone, context.config.home.root)}`);
        gatewayNote(context);
      });
    });

  for (const verb of ['pause', 'resume', 'remove'] as const) {
    cron
      .command(`${verb} <job>`)
      .description({ pause: 'Stop firing a job (kept, with its history)', resume: 'Fire a paused job again, from its next slot', remove: 'Delete a job (its run history stays)' }[verb])
      .action((ref: string, _options, command: Command) => {
        return withCron(command, (context) => {
          const job = check(context.commands[verb](ref), `Cannot ${verb} the job`);
          if (verb === 'resume') print(`Resumed ${formatJob(job, context.timezone, context.config.home.root)}`);
          else say(`${verb === 'pause' ? 'Paused' : 'Removed'} job ${job.name} (${job.id}).`);
          gatewayNote(context);
        });
      });
  }

  cron
    .command('runs [job]')
    .description('Run history, newest first (all jobs, or one by id or name)')
    .option('--limit <n>', 'how many runs', '20')
    .option('--json', 'machine-readable output')
    .action((ref: string | undefined, options: { limit: string; json?: boolean }, command: Command) => {
      return withCron(command, (context) => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new ConfigError('BAD_LIMIT', `--limit ${options.limit} is not a whole number >= 1`, 'For example: --limit 50');
        const jobId = ref === undefined ? undefined : check(context.commands.find(ref), 'Cannot list the runs').id;
        const runs = context.jobs.runs(jobId, limit);
        if (options.json) return print(JSON.stringify(runs, undefined, 2));
        if (runs.length === 0) return say('No runs yet.');
        print(formatRunTable(runs, context.timezone));
      });
    });

  cron
    .command('run <job>')
    .description('Run a job now, through the running gateway or in this process when none runs; waits and prints the result')
    .option('--json', 'print the run record')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      await withCron(command, async (context) => {
        const job = check(context.commands.find(ref), 'Cannot run the job');
        // Loaded on demand: the agent stack and Bree are only needed here.
        const { runJobNow } = await import('./cron-run.js');
        const run = await runJobNow(context, job);
        if (options.json) print(JSON.stringify(run, undefined, 2));
        else {
          const result = formatRunResult(run);
          say(result.status);
          if (result.output) print(result.output);
        }
        process.exitCode = run.status === 'error' || run.status === 'delivery_failed' ? 1 : 0;
      });
    });

  cron
    .command('next <schedule>')
    .description('Preview the next fires of a schedule in the configured timezone')
    .option('--count <n>', 'how many', '5')
    .action((schedule: string, options: { count: string }, command: Command) => {
      const home = homeOf(command);
      const config = resolveConfig(loadConfigFor(home, command.optsWithGlobals<{ home?: string }>().home).file, home);
      const count = Number(options.count);
      if (!Number.isInteger(count) || count < 1 || count > 1000) throw new ConfigError('BAD_COUNT', `--count ${options.count} is not a whole number from 1 to 1000`, 'For example: --count 10');
      const parsed = check(parseSchedule(schedule), 'Not a schedule');
      say(`Next ${count} run(s) of "${parsed.text}" in ${config.timezone}${parsed.kind === 'every' ? ' (an interval counts from the moment the job is created)' : ''}:`);
      for (const atMs of nextRuns(parsed, Date.now(), config.timezone, count)) print(formatInZone(atMs, config.timezone));
    });

  return cron;
}

/** A refused request becomes an operator error: what failed, why, what next. */
function check<T>(result: Checked<T>, what: string): T {
  if (result.ok) return result.value;
  throw new ConfigError('CRON_REFUSED', `${what}: ${result.reason}`);
}

function gatewayNote(context: CronContext): void {
  const gateway = runningGateway(context.config.home.lockFile);
  if (gateway) say(`The running gateway (pid ${gateway.pid}) picks this up within a second.`);
  else say('No gateway is running on this home: jobs fire while one runs (switchboard gateway).');
}

/** Config, a file-only logger and the store for one command (closed afterwards), plus the job commands. */
function withCron(command: Command, work: (context: CronContext) => void | Promise<void>): Promise<void> {
  return withCliCore(command, async (core) => {
    const jobs = createJobStore(core.store);
    const timezone = resolveCron(core.config).timezone;
    const commands = createJobCommands({ jobs, timezone, now: Date.now, checkDeliver: jobDeliverCheck(core.config.values) });
    await work({ config: core.config, store: core.store, logger: core.logger, jobs, timezone, commands });
  });
}
