import type { Operations } from '../operations/index.js';
import type { SubscribedView as Subscribed } from '../operations/webhooks.js';
import { formatDuration } from './format.js';
import { parseSubscribe, splitArgs, takeFlags } from './slash-commands.js';

/** What a command says on the console's bottom line; `later` arrives when a long command finishes. */
export interface SlashReply {
  now: string;
  later?: Promise<string>;
  /** `/webhook subscribe` succeeded: the console shows the card (URL, masked secret, events, target). */
  subscribed?: Promise<SubscribedView | undefined>;
}

/** The subscription card: what was made, the secret left out (it is copied on request, never drawn). */
export interface SubscribedView extends Omit<Subscribed, 'subscription'> {
  name: string;
  events: string[];
  deliver: string;
  deliverExtra: Record<string, string>;
  prompt: string | null;
}

const cronUsage = 'Usage: /cron create <schedule> <prompt> [--name N] [--deliver T] [--skills a,b] | /cron list | /cron pause|resume|remove|run <id or name>';
/** The error under `what`, unless the operation's message already says it (`Job not created: ...`). */
const failed = (what: string) => (error: unknown) => {
  const message = (error as Error).message;
  return message.startsWith(what) ? message : `${what}: ${message}`;
};

/** Runs `/reload-mcp`, `/cron ...` and `/webhook ...` through operations; undefined for names it does not know. */
export function runCoreSlash(ops: Operations, name: string, rest: string, nowMs: number): SlashReply | undefined {
  switch (name) {
    case 'reload-mcp':
      return {
        now: 'Reloading MCP servers from config.json...',
        later: ops.mcp.reload({}).then(
          (result) => `MCP reload: added ${list(result.added)}, changed ${list(result.changed)}, removed ${list(result.removed)}, kept ${list(result.unchanged)}${result.warnings.length > 0 ? `; ${result.warnings.join('; ')}` : ''}`,
          (error: unknown) => `MCP reload failed: ${(error as Error).message}. Fix config.json (switchboard config show) and run /reload-mcp again.`),
      };
    case 'cron':
      return cron(ops, rest, nowMs);
    case 'webhook':
      return webhook(ops, rest);
    default:
      return undefined;
  }
}

function cron(ops: Operations, rest: string, nowMs: number): SlashReply {
  const [sub, ...args] = splitArgs(rest);
  switch (sub) {
    case 'create': {
      const { positional, flags } = takeFlags(args, ['name', 'deliver', 'skills']);
      const [schedule, ...words] = positional;
      if (!schedule || words.length === 0) return { now: cronUsage };
      const skills = flags.skills?.split(',').map((skill) => skill.trim()).filter(Boolean);
      return {
        now: 'Creating the job...',
        later: ops.jobs.create({ schedule, prompt: words.join(' '), name: flags.name, deliver: flags.deliver, skills, origin: 'console' }).then(
          ({ job }) => `Created job ${job.name} (${job.id}), ${job.schedule}, next run ${job.nextRunAtMs ? `in ${formatDuration(job.nextRunAtMs - nowMs)}` : 'not scheduled'}; answers go to ${job.deliver}.`,
          failed('Job not created')),
      };
    }
    case 'list':
      return {
        now: 'Listing jobs...',
        later: ops.jobs.list({ all: true }).then(({ jobs }) => jobs.length === 0
          ? 'No jobs. Create one with /cron create <schedule> <prompt>.'
          : `${jobs.length} job(s): ${jobs.map((job) => `${job.name} (${job.id}) ${job.enabled ? job.schedule : 'paused'}`).join(', ')}. See the Jobs pane (3).`, failed('Cannot list')),
      };
    case 'pause':
    case 'resume':
    case 'remove': {
      const ref = args.join(' ');
      if (!ref) return { now: cronUsage };
      const [doing, done] = { pause: ['Pausing', 'Paused'], resume: ['Resuming', 'Resumed'], remove: ['Removing', 'Removed'] }[sub];
      return { now: `${doing} ${ref}...`, later: ops.jobs[sub]({ job: ref }).then(({ job }) => `${done} job ${job.name} (${job.id}).`, (error: unknown) => (error as Error).message) };
    }
    case 'run': {
      const ref = args.join(' ');
      if (!ref) return { now: cronUsage };
      return {
        now: `Running job ${ref} now...`,
        later: ops.jobs.run({ job: ref }).then(
          (run) => `Job ${run.jobName} run ${run.status}${run.reason ? `: ${run.reason}` : ''}${run.error ? `: ${run.error}` : ''}; history under Enter in the Jobs pane (3).`,
          failed('Cannot run')),
      };
    }
    default:
      return { now: cronUsage };
  }
}

const webhookUsage = 'Usage: /webhook subscribe <name> [--events a,b] [--prompt T] [--skills a,b] [--deliver T] [--deliver-extra key=value]... [--secret S] [--description D] | /webhook list | /webhook remove <name>';

function webhook(ops: Operations, rest: string): SlashReply {
  const [sub, ...args] = splitArgs(rest);
  switch (sub) {
    case 'subscribe': {
      const request = parseSubscribe(args);
      if (!request.ok) return { now: `Not subscribed: ${request.reason}. ${webhookUsage}` };
      const done = ops.webhooks.subscribe({ ...request.value, deliverExtra: request.value.deliverExtra ? [...request.value.deliverExtra] : undefined });
      return {
        now: `Subscribing "${request.value.name}"...`,
        later: done.then(({ subscription, created, url }) => `${created ? 'Subscribed' : 'Updated'} "${subscription.name}" at ${url}; c copies its URL or secret.`, failed('Not subscribed')),
        subscribed: done.then(({ subscription, ...flags }) => ({
          ...flags, name: subscription.name, events: subscription.events, deliver: subscription.deliver, deliverExtra: subscription.deliverExtra, prompt: subscription.prompt,
        }), () => undefined),
      };
    }
    case 'list':
      return {
        now: 'Listing routes...',
        later: ops.webhooks.routes({}).then(({ routes }) => routes.length === 0
          ? 'No routes: add one with /webhook subscribe <name>.'
          : `${routes.length} route(s): ${routes.map((route) => `${route.name} [${route.kind}${route.shadowed ? ', hidden by the static route' : ''}] ${route.events.length > 0 ? route.events.join('+') : 'all events'} -> ${route.deliver}`).join(', ')}; their URLs are in pane 2.`,
        failed('Cannot list')),
      };
    case 'remove': {
      if (args.length !== 1) return { now: webhookUsage };
      return {
        now: `Removing "${args[0]}"...`,
        later: ops.webhooks.unsubscribe({ name: args[0]! }).then(({ name, shadowed }) => (shadowed
          ? `Removed subscription "${name}"; the static route "${name}" keeps serving /webhooks/${name}.`
          : `Removed subscription "${name}"; /webhooks/${name} is no longer served.`), failed('Not removed')),
      };
    }
    default:
      return { now: webhookUsage };
  }
}

function list(names: string[]): string {
  return names.length > 0 ? names.join(', ') : '(none)';
}
