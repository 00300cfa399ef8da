import { Command, Option } from './commander.js';
import type { JobRequestParams } from '../operations/jobs.js';
import { commandFor } from '../config/home.js';
import { homeOf } from './context.js';
import { formatJob, formatJobTable, formatRunResult, formatRunTable, jobJson } from './cron-format.js';
import { MAX_NEXT_FIRES, MAX_ROWS } from '../operations/params.js';
import { wholeNumber } from './number-options.js';
import { print, say, UsageError } from './output.js';
import { sayWhere, withOperations } from './session.js';

const collect = (value: string, previous: string[]) => [...previous, value];

interface JobOptions { name?: string; deliver?: string; skill: string[]; skills?: string; script?: string; catchUp?: string; json?: boolean }

function skillsOf(options: JobOptions): string[] | undefined {
  if (options.skill.length === 0 && options.skills === undefined) return undefined;
  return [...options.skill, ...(options.skills ?? '').split(',')].map((skill) => skill.trim()).filter(Boolean);
}

/** `--catch-up`: commander refuses another value as a usage mistake. */
const catchUpOption = (description: string) => new Option('--catch-up <policy>', description).choices(['once', 'skip']);

/** The CLI's own check, so the error names the argument as typed rather than the operation's parameter. */
function nonEmpty(value: string, argument: string): string {
  if (value.trim() === '') throw new UsageError(`${argument} must not be empty`);
  return value;
}

const localNote = (command: Command) => `No gateway is running on this home: jobs fire while one runs (${commandFor(homeOf(command), 'gateway')}).`;

/** `switchboard cron`: scheduled jobs, through the running gateway when there is one. */
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
    .addOption(catchUpOption('a fire missed while no gateway ran: once (default) or skip'))
    .option('--json', 'machine-readable output')
    .action((schedule: string, prompt: string, options: JobOptions, command: Command) => withOperations(command, async (session) => {
      const request: JobRequestParams = {
        schedule: nonEmpty(schedule, '<schedule>'), prompt: nonEmpty(prompt, '<prompt>'), name: options.name, deliver: options.deliver, skills: skillsOf(options) ?? [], script: options.script, catchUp: options.catchUp,
        origin: 'cli', baseDir: process.cwd(),
      };
      const { job, timezone } = await session.operations.jobs.create(request);
      if (options.json) print(JSON.stringify(jobJson(job, timezone), undefined, 2));
      else print(`Created job ${formatJob(job, timezone, homeOf(command).root)}`);
      sayWhere(session, localNote(command));
    }));

  cron
    .command('list')
    .description('Enabled jobs with their next run (--all adds paused ones)')
    .option('--all', 'include paused jobs')
    .option('--json', 'machine-readable output')
    .action((options: { all?: boolean; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { jobs, timezone } = await operations.jobs.list({ all: options.all === true });
      if (options.json) return print(JSON.stringify(jobs.map((job) => jobJson(job, timezone)), undefined, 2));
      if (jobs.length === 0) return say(options.all ? 'No jobs yet: switchboard cron create "<schedule>" "<prompt>"' : 'No enabled jobs (cron list --all shows paused ones).');
      print(formatJobTable(jobs, timezone));
    }));

  cron
    .command('show <job>')
    .description('One job in full (id or name)')
    .option('--json', 'machine-readable output')
    .action((ref: string, options: { json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { job, timezone } = await operations.jobs.show({ job: ref });
      // A skill removed (or broken) since the job was made: its runs go on without it, and say so.
      const { warnings } = job.skills.length > 0 ? await operations.skills.check({ names: job.skills }) : { warnings: [] };
      if (options.json) return print(JSON.stringify({ ...jobJson(job, timezone), ...(warnings.length > 0 ? { skillWarnings: warnings } : {}) }, undefined, 2));
      print(formatJob(job, timezone, homeOf(command).root));
      for (const warning of warnings) say(`warning: ${warning}; its runs go on without it`);
    }));

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
    .addOption(catchUpOption('once or skip'))
    .option('--json', 'machine-readable output')
    .action((ref: string, options: JobOptions & { schedule?: string; prompt?: string }, command: Command) => withOperations(command, async (session) => {
      const changes = { schedule: options.schedule, prompt: options.prompt, name: options.name, deliver: options.deliver, skills: skillsOf(options), script: options.script, catchUp: options.catchUp };
      if (Object.values(changes).every((value) => value === undefined)) {
        throw new UsageError(`nothing to change for job ${ref}: give at least one of --schedule, --prompt, --name, --deliver, --skill, --skills, --script, --catch-up`);
      }
      const { job, timezone } = await session.operations.jobs.edit({ job: ref, ...changes, origin: 'cli', baseDir: process.cwd() });
      if (options.json) print(JSON.stringify(jobJson(job, timezone), undefined, 2));
      else print(`Changed ${formatJob(job, timezone, homeOf(command).root)}`);
      sayWhere(session, localNote(command));
    }));

  for (const verb of ['pause', 'resume', 'remove'] as const) {
    const verbCommand = cron
      .command(`${verb} <job>`)
      .description({ pause: 'Stop firing a job (kept, with its history)', resume: 'Fire a paused job again, from its next slot', remove: 'Delete a job (its run history stays)' }[verb])
      .action((ref: string, _options, command: Command) => withOperations(command, async (session) => {
        const { job, timezone } = await session.operations.jobs[verb]({ job: ref });
        if (verb === 'resume') print(`Resumed ${formatJob(job, timezone, homeOf(command).root)}`);
        else print(`${verb === 'pause' ? 'Paused' : 'Removed'} job ${job.name} (${job.id}).`); // the result, on stdout as resume's
        sayWhere(session, localNote(command));
      }));
    if (verb === 'remove') verbCommand.alias('delete').alias('rm');
  }

  cron
    .command('runs [job]')
    .description('Run history, newest first (all jobs, or one by id or name)')
    .option('--limit <n>', 'how many runs', wholeNumber(MAX_ROWS), 20)
    .option('--json', 'machine-readable output')
    .action((ref: string | undefined, options: { limit: number; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { runs, timezone } = await operations.jobs.runs({ ...(ref === undefined ? {} : { job: ref }), limit: options.limit });
      if (options.json) return print(JSON.stringify(runs, undefined, 2));
      if (runs.length === 0) return say('No runs yet.');
      print(formatRunTable(runs, timezone));
    }));

  cron
    .command('run <job>')
    .description('Run a job now, inside the running gateway or in this process (with the MCP servers) when none runs; waits and prints the result')
    .option('--json', 'print the run record')
    .action((ref: string, options: { json?: boolean }, command: Command) => withOperations(command, async (session) => {
      say(session.where === 'gateway' ? `Running ${ref} on the gateway (pid ${session.hello.pid})...` : `No gateway is running: running ${ref} in this process...`);
      const { job } = await session.operations.jobs.show({ job: ref });
      const { followRun } = await import('./follow-run.js'); // `cron run` only: the other cron commands do not load it
      const stop = await followRun(session, { origin: `job:${job.id}` }, false);
      const run = await session.operations.jobs.run({ job: job.id }).finally(stop);
      if (options.json) print(JSON.stringify(run, undefined, 2));
      else {
        const result = formatRunResult(run);
        say(result.status);
        if (result.output) print(result.output);
      }
      process.exitCode = run.status === 'error' || run.status === 'delivery_failed' ? 1 : 0;
    }));

  cron
    .command('next <schedule>')
    .description('Preview the next fires of a schedule in the configured timezone')
    .option('--count <n>', 'how many', wholeNumber(MAX_NEXT_FIRES), 5)
    .action((schedule: string, options: { count: number }, command: Command) => withOperations(command, async ({ operations }) => {
      const next = await operations.jobs.next({ schedule, count: options.count });
      say(`Next ${next.times.length} run(s) of "${next.schedule}" in ${next.timezone}${next.interval ? ' (an interval counts from the moment the job is created)' : ''}:`);
      for (const time of next.times) print(time);
    }));

  return cron;
}
