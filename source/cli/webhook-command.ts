import fs from 'node:fs';
import { Command } from './commander.js';
import type { DeliveryRecord } from '../store/webhook-deliveries.js';
import type { RouteView, SubscribedView } from '../operations/webhooks.js';
import { OperatorError } from '../operations/errors.js';
import { MAX_ROWS } from '../operations/params.js';
import { wholeNumber } from './number-options.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';
import { homeOf } from './context.js';
import { commandFor } from '../config/home.js';

/** `switchboard webhook ...`: dynamic subscriptions (spec 2.8), tests, deliveries and replays, through the running gateway when there is one. */
export function webhookCommand(): Command {
  const webhook = new Command('webhook').description('Dynamic webhook subscriptions, tests, deliveries and replays');

  webhook
    .command('subscribe <name>')
    .description('Create a dynamic route served at /webhooks/<name>, or change the options given (the running gateway serves it at once)')
    .option('--events <list>', 'accepted event names, comma-separated (default: all)')
    .option('--prompt <template>', 'prompt template, e.g. "Review {pull_request.html_url}" (default: the whole payload as JSON)')
    .option('--skills <list>', 'skills, comma-separated; only the first one found is loaded')
    .option('--deliver <target>', 'delivery target: log (default), local, github_comment, telegram[:chat], discord, slack, signal, sms, email')
    .option('--deliver-extra <key=value>', 'target parameter, a template (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--secret <secret>', 'shared secret (default: generated; a re-subscribe keeps the current one)')
    .option('--description <text>', 'shown in webhook list and the console')
    .option('--json', 'machine-readable output; it carries the secret, which the sender needs (this is the moment it is shown)')
    .action((name: string, options: SubscribeOptions, command: Command) => withOperations(command, async (session) => {
      const result = await session.operations.webhooks.subscribe({
        name, events: options.events, prompt: options.prompt, skills: options.skills, deliver: options.deliver,
        deliverExtra: options.deliverExtra, secret: options.secret, description: options.description,
      });
      if (options.json) print(JSON.stringify(subscribedJson(result), undefined, 2));
      else printSubscribed(result);
      if (result.shadowed) say(`Not served: config.json has a static route "${result.subscription.name}", which wins; this subscription is served once that route is removed.`);
      else say(session.where === 'gateway' ? `The running gateway (pid ${session.hello.pid}) serves it now.` : `No gateway is running: it is served once one starts (${commandFor(homeOf(command), 'gateway')}).`);
    }));

  webhook
    .command('list')
    .description('Static routes (config.json) and dynamic subscriptions')
    .option('--json', 'machine-readable output (secrets masked unless --show-secret)')
    .option('--show-secret', 'show secrets')
    .action((options: { json?: boolean; showSecret?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { enabled, routes } = await operations.webhooks.routes({ showSecrets: options.showSecret === true });
      if (!enabled) throw disabledError();
      if (options.json) return print(JSON.stringify(routes, undefined, 2));
      if (routes.length === 0) return say('No routes: add one with switchboard webhook subscribe <name>.');
      for (const row of routes) print(describeRoute(row));
    }));

  webhook
    .command('remove <name>')
    .description('Remove a dynamic subscription (static routes live in config.json)')
    .action((name: string, _options, command: Command) => withOperations(command, async ({ operations }) => {
      const removed = await operations.webhooks.unsubscribe({ name });
      say(removed.shadowed
        ? `Removed subscription "${removed.name}"; the static route "${removed.name}" in config.json keeps serving /webhooks/${removed.name}.`
        : `Removed subscription "${removed.name}"; /webhooks/${removed.name} is no longer served.`);
    }));

  webhook
    .command('test <route>')
    .description('Send a signed test request to a route (static or subscription) through the running gateway\'s intake; prints status and body')
    .option('--event <name>', 'event name (sent as X-GitHub-Event)', 'test')
    .option('--payload <json|@file>', 'JSON object to send (default: a small test payload)')
    .action((route: string, options: { event: string; payload?: string }, command: Command) => withOperations(command, async ({ operations }) => {
      const payload = payloadArgument(options.payload);
      const result = await operations.webhooks.test({ route, event: options.event, ...(payload ? { payload } : {}) });
      print(`HTTP ${result.status}`);
      print(typeof result.body === 'string' ? result.body : JSON.stringify(result.body));
      if (result.status === 202) say(`Follow it with: ${commandFor(homeOf(command), `webhook deliveries --route ${route}`)}`);
      if (result.status >= 400) process.exitCode = 1;
    }));

  webhook
    .command('deliveries')
    .description('Accepted deliveries, newest first, with their run state and delivery outcome')
    .option('--route <name>', 'only this route')
    .option('--limit <n>', 'how many', wholeNumber(MAX_ROWS), 20)
    .option('--json', 'machine-readable output')
    .action((options: { route?: string; limit: number; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const rows = await operations.webhooks.deliveries({ route: options.route, limit: options.limit });
      if (options.json) return print(JSON.stringify(rows, undefined, 2));
      if (rows.length === 0) return say(options.route ? `No deliveries on route "${options.route}" yet.` : 'No deliveries yet.');
      for (const row of rows) print(describeDelivery(row));
    }));

  webhook
    .command('show <delivery_id>')
    .description('One delivery whole: its rendered prompt, state, run, output and delivery result (the latest record of that id)')
    .option('--json', 'machine-readable output')
    .action((deliveryId: string, options: { json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const row = await operations.webhooks.delivery({ deliveryId });
      print(options.json ? JSON.stringify(row, undefined, 2) : showDelivery(row));
    }));

  webhook
    .command('replay <delivery_id>')
    .description('Run a recorded delivery again, as a new delivery marked as a replay')
    .action((deliveryId: string, _options, command: Command) => withOperations(command, async (session) => {
      const copy = await session.operations.webhooks.replay({ deliveryId });
      say(`Replay of ${deliveryId} queued as ${copy.deliveryId} (route ${copy.route}).`);
      say(session.where === 'gateway' ? `The running gateway (pid ${session.hello.pid}) runs it now.` : `No gateway is running: it runs when the gateway next starts (${commandFor(homeOf(command), 'gateway')}).`);
      print(copy.deliveryId);
    }));

  return webhook;
}

interface SubscribeOptions {
  events?: string;
  prompt?: string;
  skills?: string;
  deliver?: string;
  deliverExtra: string[];
  secret?: string;
  description?: string;
  json?: boolean;
}

function subscribedJson({ subscription, url, created, secretKept, shadowed }: SubscribedView) {
  return {
    name: subscription.name, url, secret: subscription.secret, secret_kept: secretKept, events: subscription.events, prompt: subscription.prompt,
    skills: subscription.skills, deliver: subscription.deliver, deliver_extra: subscription.deliverExtra, description: subscription.description,
    created, shadowed_by_static_route: shadowed,
    created_at: new Date(subscription.createdAtMs).toISOString(), updated_at: new Date(subscription.updatedAtMs).toISOString(),
  };
}

function printSubscribed({ subscription, url, created, secretKept }: SubscribedView): void {
  say(`${created ? 'Subscribed' : 'Updated'} "${subscription.name}".`);
  print(`URL:      ${url}`);
  print(`Secret:   ${subscription.secret}${secretKept ? ' (kept)' : ''}`);
  print(`Events:   ${subscription.events.length > 0 ? subscription.events.join(', ') : 'all'}`);
  print(`Deliver:  ${subscription.deliver}${Object.keys(subscription.deliverExtra).length > 0 ? ` ${JSON.stringify(subscription.deliverExtra)}` : ''}`);
  print(`Prompt:   ${subscription.prompt ?? '(the whole payload as JSON)'}`);
  if (subscription.skills.length > 0) print(`Skills:   ${subscription.skills.join(', ')} (first one found is loaded)`);
}

function describeRoute(row: RouteView): string {
  const hidden = row.shadowed ? ' (hidden by the static route of that name)' : '';
  const lines = [
    `${row.name}  [${row.kind}]${hidden}  ${row.url ?? ''}`,
    `    events: ${row.events.length > 0 ? row.events.join(', ') : 'all'}; deliver: ${row.deliver}; secret: ${Array.isArray(row.secret) ? row.secret.join(', ') : row.secret}`,
  ];
  if (row.description) lines.push(`    ${row.description}`);
  return lines.join('\n');
}

function describeDelivery(row: DeliveryRecord): string {
  const when = new Date(row.receivedAtMs).toISOString().replace('T', ' ').slice(0, 19);
  const replay = row.replayOf ? ` (replay of ${row.replayOf})` : '';
  const detail = row.deliveryDetail ?? (row.state === 'queued' ? 'waiting for a run slot' : row.state === 'running' ? 'agent running' : '');
  const error = row.error ? `; run error: ${row.error}` : '';
  return `${when}  ${row.state.padEnd(15)} ${row.route}  ${row.event}  ${row.deliveryId}${replay}\n    ${detail}${error}`;
}

/** `webhook show`: the record as the console's details view shows it, in plain lines. */
function showDelivery(row: DeliveryRecord): string {
  const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));
  return [
    `Delivery ${row.deliveryId} on route ${row.route} (event ${row.event})${row.replayOf ? `, replay of ${row.replayOf}` : ''}`,
    `State:    ${row.state}${row.node ? ` on node ${row.node}` : ''}`,
    `Received: ${time(row.receivedAtMs)}  started: ${time(row.startedAtMs)}  finished: ${time(row.finishedAtMs)}`,
    `Target:   ${row.target}${row.deliveryDetail ? ` - ${row.deliveryDetail}` : ''}`,
    `Run:      ${row.runId ?? '-'}${row.runStatus ? ` (${row.runStatus})` : ''}${row.error ? `; error: ${row.error}` : ''}`,
    '',
    'Prompt:',
    row.prompt,
    '',
    'Output:',
    row.output ?? (row.state === 'queued' || row.state === 'running' ? '(not yet)' : '(none)'),
  ].join('\n');
}

function disabledError(): OperatorError {
  return new OperatorError('unavailable', 'The webhook platform is disabled (platforms.webhook.enabled is not true)',
    'Enable it with: switchboard config set platforms.webhook.enabled true (then restart the gateway).');
}

/** `--payload`: inline JSON or @file; an object, as webhook bodies are. */
function payloadArgument(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const file = value.startsWith('@') ? value.slice(1) : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(file ? fs.readFileSync(file, 'utf8') : value);
  } catch (error) {
    throw new OperatorError('invalid', `--payload is not valid JSON${file ? ` (file ${file})` : ''}: ${(error as Error).message}`, 'Give a JSON object, inline or as @file.json.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OperatorError('invalid', '--payload must be a JSON object', 'Webhook bodies are JSON objects, e.g. --payload \'{"action":"opened"}\'.');
  return parsed as Record<string, unknown>;
}
