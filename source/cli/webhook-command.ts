import fs from 'node:fs';
import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import type { HomeLayout } from '../config/home.js';
import { resolveConfig } from '../config/load.js';
import type { ConfigFile } from '../config/types.js';
import { MASK } from '../config/mask.js';
import { runningGateway } from '../gateway/lock.js';
import { listenerUrl } from '../gateway/webhook-listener.js';
import { openStore, type Store } from '../store/database.js';
import { createDeliveryStore, type DeliveryRecord } from '../store/webhook-deliveries.js';
import { createSubscriptionStore, type Subscription } from '../store/webhook-subscriptions.js';
import { resolveWebhooks, type ResolvedWebhooks } from '../webhooks/config.js';
import { subscribeWebhook, unsubscribeWebhook } from '../webhooks/subscribe.js';
import { payloadArgument } from '../webhooks/subscription-input.js';
import { testRequest } from '../webhooks/test-request.js';
import { homeOf, loadConfigFor } from './context.js';
import { print, say } from './output.js';

interface Context {
  home: HomeLayout;
  settings: ResolvedWebhooks;
  values: ConfigFile;
  store: Store;
}

/** `switchboard webhook ...`: dynamic subscriptions (spec 2.8), tests, deliveries and replays. */
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
    .option('--json', 'machine-readable output (secret masked unless --show-secret)')
    .option('--show-secret', 'include the secret in --json output')
    .action((rawName: string, options: SubscribeOptions, command: Command) => {
      withContext(command, ({ home, settings, store, values }) => {
        const result = subscribeWebhook({ subscriptions: createSubscriptionStore(store), values, host: settings.host, isStaticRoute: (name) => settings.routes.has(name), now: Date.now }, {
          name: rawName, events: options.events, prompt: options.prompt, skills: options.skills, deliver: options.deliver,
          deliverExtra: options.deliverExtra, secret: options.secret, description: options.description,
        });
        if (!result.ok) throw result.error;
        const { subscription, created, secretKept, shadowed } = result.value;
        const { name } = subscription;
        const url = `${baseUrl(home, settings)}/webhooks/${name}`;
        if (options.json) {
          print(JSON.stringify({ ...subscriptionJson(subscription, options.showSecret === true), url, created, shadowed_by_static_route: shadowed }, undefined, 2));
        } else {
          say(`${created ? 'Subscribed' : 'Updated'} "${name}".`);
          print(`URL:      ${url}`);
          print(`Secret:   ${subscription.secret}${secretKept ? ' (kept)' : ''}`);
          print(`Events:   ${subscription.events.length > 0 ? subscription.events.join(', ') : 'all'}`);
          print(`Deliver:  ${subscription.deliver}${Object.keys(subscription.deliverExtra).length > 0 ? ` ${JSON.stringify(subscription.deliverExtra)}` : ''}`);
          print(`Prompt:   ${subscription.prompt ?? '(the whole payload as JSON)'}`);
          if (subscription.skills.length > 0) print(`Skills:   ${subscription.skills.join(', ')} (first one found is loaded)`);
        }
        if (shadowed) say(`Note: config.json has a static route "${name}"; it wins, so this subscription is not served until that route is removed.`);
        const gateway = runningGateway(home.lockFile);
        say(gateway ? `The running gateway (pid ${gateway.pid}) serves it now.` : 'No gateway is running: start it with switchboard gateway.');
      });
    });

  webhook
    .command('list')
    .description('Static routes (config.json) and dynamic subscriptions')
    .option('--json', 'machine-readable output (secrets masked unless --show-secret)')
    .option('--show-secret', 'show secrets')
    .action((options: { json?: boolean; showSecret?: boolean }, command: Command) => {
      withContext(command, ({ home, settings, store }) => {
        const show = options.showSecret === true;
        const routes = [...settings.routes.values()].map((route) => ({
          name: route.name, kind: 'static', url: `${baseUrl(home, settings)}/webhooks/${route.name}`, events: route.events, deliver: route.deliver,
          secret: route.insecure ? 'INSECURE_NO_AUTH' : show ? route.secrets : route.secrets.map(() => MASK), description: route.description ?? null,
        }));
        const subscriptions = createSubscriptionStore(store).list().map((subscription) => ({
          ...subscriptionJson(subscription, show), kind: 'subscription', url: `${baseUrl(home, settings)}/webhooks/${subscription.name}`,
          shadowed_by_static_route: settings.routes.has(subscription.name),
        }));
        if (options.json) return print(JSON.stringify([...routes, ...subscriptions], undefined, 2));
        if (routes.length + subscriptions.length === 0) return say('No routes: add one with switchboard webhook subscribe <name>.');
        for (const row of [...routes, ...subscriptions]) {
          const hidden = 'shadowed_by_static_route' in row && row.shadowed_by_static_route ? ' (hidden by the static route of that name)' : '';
          print(`${row.name}  [${row.kind}]${hidden}  ${row.url}`);
          print(`    events: ${row.events.length > 0 ? row.events.join(', ') : 'all'}; deliver: ${row.deliver}; secret: ${Array.isArray(row.secret) ? row.secret.join(', ') : row.secret}`);
          if (row.description) print(`    ${row.description}`);
        }
      });
    });

  webhook
    .command('remove <name>')
    .description('Remove a dynamic subscription (static routes live in config.json)')
    .action((rawName: string, _options, command: Command) => {
      withContext(command, ({ settings, store }) => {
        const result = unsubscribeWebhook({ subscriptions: createSubscriptionStore(store), isStaticRoute: (name) => settings.routes.has(name) }, rawName);
        if (!result.ok) throw result.error;
        const { name, shadowed } = result.value;
        say(shadowed
          ? `Removed subscription "${name}"; the static route "${name}" in config.json keeps serving /webhooks/${name}.`
          : `Removed subscription "${name}"; the gateway stops serving /webhooks/${name} at once.`);
      });
    });

  webhook
    .command('test <name>')
    .description('Send a signed test request to a subscription through the running listener; prints status and body')
    .option('--event <name>', 'event name (sent as X-GitHub-Event)', 'test')
    .option('--payload <json|@file>', 'JSON object to send (default: a small test payload)')
    .action(async (rawName: string, options: { event: string; payload?: string }, command: Command) => {
      await withContextAsync(command, async ({ home, settings, store }) => {
        const name = rawName.trim().toLowerCase();
        if (settings.routes.has(rawName) || settings.routes.has(name)) {
          throw new ConfigError('STATIC_ROUTE', `webhook test works only for dynamic subscriptions (spec 4.1); "${rawName}" is a static route in config.json`,
            'Send a request signed with its secret yourself (see the README), or subscribe a dynamic route to try a prompt.');
        }
        const subscription = createSubscriptionStore(store).get(name);
        if (!subscription) throw new ConfigError('NO_SUBSCRIPTION', `No subscription named "${name}"`, `Create it with: switchboard webhook subscribe ${name}`);
        const gateway = runningGateway(home.lockFile);
        if (!gateway?.webhookUrl) throw new ConfigError('GATEWAY_NOT_RUNNING', `No gateway with a webhook listener is running on ${home.root}`, 'Start it with: switchboard gateway (in another terminal), then test again.');
        const payload = payloadArgument(options.payload, (file) => fs.readFileSync(file, 'utf8'));
        const request = testRequest(subscription.secret === 'INSECURE_NO_AUTH' ? undefined : subscription.secret, options.event, payload, Date.now());
        const url = `${gateway.webhookUrl}/webhooks/${name}`;
        const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body }).catch((error: unknown) => {
          throw new ConfigError('TEST_FAILED', `POST ${url} failed: ${(error as Error).message}`, 'Is the gateway still running? switchboard status');
        });
        print(`HTTP ${response.status}`);
        print(await response.text());
        if (response.status === 202) say(`Follow it with: switchboard webhook deliveries --route ${name}`);
        if (!response.ok) process.exitCode = 1;
      });
    });

  webhook
    .command('deliveries')
    .description('Accepted deliveries, newest first, with their run state and delivery outcome')
    .option('--route <name>', 'only this route')
    .option('--limit <n>', 'how many', '20')
    .option('--json', 'machine-readable output')
    .action((options: { route?: string; limit: string; json?: boolean }, command: Command) => {
      withContext(command, ({ store }) => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new ConfigError('BAD_LIMIT', `--limit ${options.limit} is not a positive whole number`, 'For example --limit 50.');
        const rows = createDeliveryStore(store).recent({ route: options.route, limit });
        if (options.json) return print(JSON.stringify(rows, undefined, 2));
        if (rows.length === 0) return say(options.route ? `No deliveries on route "${options.route}" yet.` : 'No deliveries yet.');
        for (const row of rows) print(describeDelivery(row));
      });
    });

  webhook
    .command('replay <delivery_id>')
    .description('Run a recorded delivery again, as a new delivery marked as a replay')
    .action((deliveryId: string, _options, command: Command) => {
      withContext(command, ({ home, store }) => {
        const deliveries = createDeliveryStore(store);
        const original = deliveries.findByDeliveryId(deliveryId);
        if (!original) throw new ConfigError('NO_DELIVERY', `No recorded webhook delivery "${deliveryId}"`, 'See recent ones with: switchboard webhook deliveries');
        const copy = deliveries.enqueueReplay(original, Date.now());
        say(`Replay of ${deliveryId} queued as ${copy.deliveryId} (route ${copy.route}).`);
        const gateway = runningGateway(home.lockFile);
        say(gateway ? `The running gateway (pid ${gateway.pid}) picks it up within a second.` : 'No gateway is running: it runs when the gateway next starts (switchboard gateway).');
        print(copy.deliveryId);
      });
    });

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
  showSecret?: boolean;
}

function subscriptionJson(subscription: Subscription, showSecret: boolean) {
  return {
    name: subscription.name,
    secret: showSecret ? subscription.secret : MASK,
    events: subscription.events,
    prompt: subscription.prompt,
    skills: subscription.skills,
    deliver: subscription.deliver,
    deliver_extra: subscription.deliverExtra,
    description: subscription.description,
    created_at: new Date(subscription.createdAtMs).toISOString(),
    updated_at: new Date(subscription.updatedAtMs).toISOString(),
  };
}

function describeDelivery(row: DeliveryRecord): string {
  const when = new Date(row.receivedAtMs).toISOString().replace('T', ' ').slice(0, 19);
  const replay = row.replayOf ? ` (replay of ${row.replayOf})` : '';
  const detail = row.deliveryDetail ?? (row.state === 'queued' ? 'waiting for a run slot' : row.state === 'running' ? 'agent running' : '');
  const error = row.error ? `; run error: ${row.error}` : '';
  return `${when}  ${row.state.padEnd(15)} ${row.route}  ${row.event}  ${row.deliveryId}${replay}\n    ${detail}${error}`;
}

/** The listener address: the running gateway's (it may have picked the port), else the configured one. */
function baseUrl(home: HomeLayout, settings: ResolvedWebhooks): string {
  return runningGateway(home.lockFile)?.webhookUrl ?? listenerUrl(settings.host, settings.port);
}

function open(command: Command): Context {
  const home = homeOf(command);
  const { file } = loadConfigFor(home, command.optsWithGlobals<{ home?: string }>().home);
  const config = resolveConfig(file, home);
  const settings = resolveWebhooks(config);
  if (!settings.enabled) {
    throw new ConfigError('WEBHOOK_DISABLED', `The webhook platform is disabled in ${home.configFile} (platforms.webhook.enabled is not true)`,
      'Enable it with: switchboard config set platforms.webhook.enabled true (then restart the gateway).');
  }
  return { home, settings, values: config.values, store: openStore(home.stateDb) };
}

function withContext(command: Command, work: (context: Context) => void): void {
  const context = open(command);
  try {
    work(context);
  } finally {
    context.store.close();
  }
}

async function withContextAsync(command: Command, work: (context: Context) => Promise<void>): Promise<void> {
  const context = open(command);
  try {
    await work(context);
  } finally {
    context.store.close();
  }
}
