import type { ConsoleGateway } from './console-model.js';
import { formatDuration } from './format.js';
import type { Subscribed } from '../webhooks/subscribe.js';
import { parseSubscribe, splitArgs, takeFlags } from './slash-commands.js';

/** What a command says on the console's bottom line; `later` arrives when a long command finishes. */
export interface SlashReply {
  now: string;
  later?: Promise<string>;
  /** `/webhook subscribe` succeeded: the console shows the card (URL, masked secret, events, target). */
  subscribed?: SubscribedView;
}

export interface SubscribedView extends Omit<Subscribed, 'subscription'> {
  name: string;
  url: string | null;
  events: string[];
  deliver: string;
  deliverExtra: Record<string, string>;
  prompt: string | null;
}

const cronUsage = 'Usage: /cron create <schedule> <prompt> [--name N] [--deliver T] [--skills a,b] | /cron list | /cron pause|resume|remove|run <id or name>';

/** Runs `/reload-mcp`, `/cron ...` and `/webhook ...` against the core; undefined for names it does not know. */
export function runCoreSlash(gateway: ConsoleGateway, name: string, rest: string, nowMs: number): SlashReply | undefined {
  switch (name) {
    case 'reload-mcp':
      return {
        now: 'Reloading MCP servers from config.json...',
        later: gateway.mcp.reload().then(
          (result) => `MCP reload: added ${list(result.added)}, changed ${list(result.changed)}, removed ${list(result.removed)}, kept ${list(result.unchanged)}${result.warnings.length > 0 ? `; ${result.warnings.join('; ')}` : ''}`,
          (error: unknown) => `MCP reload failed: ${(error as Error).message}. Fix config.json (switchboard config show) and run /reload-mcp again.`),
      };
    case 'cron':
      return cron(gateway, rest, nowMs);
    case 'webhook':
      return webhook(gateway, rest);
    default:
      return undefined;
  }
}

function cron(gateway: ConsoleGateway, rest: string, nowMs: number): SlashReply {
  const [sub, ...args] = splitArgs(rest);
  switch (sub) {
    case 'create': {
      const { positional, flags } = takeFlags(args, ['name', 'deliver', 'skills']);
      const [schedule, ...words] = positional;
      if (!schedule || words.length === 0) return { now: cronUsage };
      const skills = flags.skills?.split(',').map((skill) => skill.trim()).filter(Boolean);
      const created = gateway.jobs.create({ schedule, prompt: words.join(' '), name: flags.name, deliver: flags.deliver, skills });
      if (!created.ok) return { now: `Job not created: ${created.reason}` };
      const job = created.value;
      return { now: `Created job ${job.name} (${job.id}), ${job.schedule}, next run ${job.nextRunAtMs ? `in ${formatDuration(job.nextRunAtMs - nowMs)}` : 'not scheduled'}; answers go to ${job.deliver}.` };
    }
    case 'list': {
      const jobs = gateway.jobs.list({ all: true });
      if (jobs.length === 0) return { now: 'No jobs. Create one with /cron create <schedule> <prompt>.' };
      return { now: `${jobs.length} job(s): ${jobs.map((job) => `${job.name} (${job.id}) ${job.enabled ? job.schedule : 'paused'}`).join(', ')}. See the Jobs pane (3).` };
    }
    case 'pause':
    case 'resume':
    case 'remove': {
      const ref = args.join(' ');
      if (!ref) return { now: cronUsage };
      const result = gateway.jobs[sub](ref);
      const verb = { pause: 'Paused', resume: 'Resumed', remove: 'Removed' }[sub];
      return { now: result.ok ? `${verb} job ${result.value.name} (${result.value.id}).` : `Cannot ${sub}: ${result.reason}` };
    }
    case 'run': {
      const ref = args.join(' ');
      if (!ref) return { now: cronUsage };
      const found = gateway.jobs.find(ref);
      if (!found.ok) return { now: `Cannot run: ${found.reason}` };
      return {
        now: `Running job ${found.value.name} (${found.value.id}) now...`,
        later: gateway.jobs.runNow(ref).then((run) => run.ok
          ? `Job ${found.value.name} run ${run.value.status}${run.value.reason ? `: ${run.value.reason}` : ''}${run.value.error ? `: ${run.value.error}` : ''}; history under Enter in the Jobs pane (3).`
          : `Cannot run: ${run.reason}`),
      };
    }
    default:
      return { now: cronUsage };
  }
}

const webhookUsage = 'Usage: /webhook subscribe <name> [--events a,b] [--prompt T] [--skills a,b] [--deliver T] [--deliver-extra key=value]... [--secret S] [--description D] | /webhook list | /webhook remove <name>';

function webhook(gateway: ConsoleGateway, rest: string): SlashReply {
  const [sub, ...args] = splitArgs(rest);
  switch (sub) {
    case 'subscribe': {
      const request = parseSubscribe(args);
      if (!request.ok) return { now: `Not subscribed: ${request.reason}. ${webhookUsage}` };
      const result = gateway.webhooks.subscribe(request.value);
      if (!result.ok) return { now: `Not subscribed: ${result.reason}` };
      const { subscription, ...flags } = result.value;
      const url = gateway.webhooks.routes().find((route) => route.name === subscription.name)?.url ?? null;
      return {
        now: `${flags.created ? 'Subscribed' : 'Updated'} "${subscription.name}" at ${url ?? `/webhooks/${subscription.name}`}; c copies its URL or secret.`,
        subscribed: { ...flags, name: subscription.name, url, events: subscription.events, deliver: subscription.deliver, deliverExtra: subscription.deliverExtra, prompt: subscription.prompt },
      };
    }
    case 'list': {
      const routes = gateway.webhooks.routes();
      if (routes.length === 0) return { now: 'No routes: add one with /webhook subscribe <name>.' };
      return { now: `${routes.length} route(s): ${routes.map((route) => `${route.name} [${route.kind}${route.shadowed ? ', hidden by the static route' : ''}] ${route.events.length > 0 ? route.events.join('+') : 'all events'} -> ${route.deliver}`).join(', ')}. URLs in the Webhooks pane (2).` };
    }
    case 'remove': {
      if (args.length !== 1) return { now: webhookUsage };
      const result = gateway.webhooks.unsubscribe(args[0]!);
      if (!result.ok) return { now: `Not removed: ${result.reason}` };
      const { name, shadowed } = result.value;
      return { now: shadowed ? `Removed subscription "${name}"; the static route "${name}" keeps serving /webhooks/${name}.` : `Removed subscription "${name}"; /webhooks/${name} is no longer served.` };
    }
    default:
      return { now: webhookUsage };
  }
}

function list(names: string[]): string {
  return names.length > 0 ? names.join(', ') : '(none)';
}
