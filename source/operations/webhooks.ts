import { commandFor } from '../config/home.js';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MASK } from '../config/mask.js';
import type { WebhookRouteView } from '../gateway/webhook-commands.js';
import type { DeliveryRecord, DeliveryState } from '../store/webhook-deliveries.js';
import type { Subscription } from '../store/webhook-subscriptions.js';
import type { WebhookTestResult } from '../webhooks/platform.js';
import type { OperationsCore } from './core.js';
import { OperatorError } from './errors.js';
import { checked, optionalCount, optionalFlag, optionalText, optionalTextList, text, type Implementation, type Params } from './params.js';

export type RouteView = Omit<WebhookRouteView, 'secrets' | 'insecure'> & { secret: string | string[] };

export interface SubscribedView {
  /** The secret in clear: the one moment it is shown (the sender needs it). */
  subscription: Subscription;
  url: string;
  created: boolean;
  secretKept: boolean;
  /** A static route of that name hides the subscription until it is removed. */
  shadowed: boolean;
}

export interface WebhookOperations {
  routes(params: { showSecrets?: boolean }): Promise<{ enabled: boolean; routes: RouteView[] }>;
  subscribe(params: { name: string; events?: string; prompt?: string; skills?: string; deliver?: string; deliverExtra?: string[]; secret?: string; description?: string }): Promise<SubscribedView>;
  unsubscribe(params: { name: string }): Promise<{ name: string; shadowed: boolean }>;
  /** A signed test request through the running listener's intake (static routes and subscriptions). */
  test(params: { route: string; event?: string; payload?: Record<string, unknown> }): Promise<WebhookTestResult>;
  replay(params: { deliveryId: string }): Promise<{ deliveryId: string; route: string; replayOf: string }>;
  deliveries(params: { route?: string; limit?: number }): Promise<DeliveryRecord[]>;
  delivery(params: { deliveryId: string }): Promise<DeliveryRecord>;
  /** A route's first secret, for the console's copy (never logged). */
  secret(params: { route: string }): Promise<{ secret: string }>;
  /**
   * A route's first secret written to `<home>/run/secrets/<route>.secret` (mode 0600) where the
   * gateway runs: the console's answer to `c` without a clipboard, since it never draws a secret.
   */
  writeSecret(params: { route: string }): Promise<{ path: string }>;
  counts(params: Record<string, never>): Promise<Record<DeliveryState, number> | null>;
}

const disabled = () => new OperatorError('unavailable', 'The webhook platform is disabled (platforms.webhook.enabled is not true)',
  'Enable it: switchboard config set platforms.webhook.enabled true, then restart the gateway.');

export function createWebhookOperations(core: OperationsCore): WebhookOperations {
  const webhooks = async () => {
    const platform = (await core.gateway()).webhooks;
    if (!platform.enabled) throw disabled();
    return platform;
  };
  const running = (what: string) => {
    if (core.where !== 'gateway') {
      throw new OperatorError('unavailable', `No gateway is running on ${core.home.root}, so ${what} cannot happen now`, `Start it with: ${commandFor(core.home, 'gateway')} (or ${commandFor(core.home, '')}), then try again.`);
    }
  };
  const urlOf = async (name: string) => (await (await webhooks()).routes()).find((route) => route.name === name)?.url ?? `/webhooks/${encodeURIComponent(name)}`;

  return {
    async routes(params: Params) {
      const show = optionalFlag(params, 'showSecrets', 'webhooks.routes');
      const platform = (await core.gateway()).webhooks;
      if (!platform.enabled) return { enabled: false, routes: [] };
      return {
        enabled: true,
        routes: (await platform.routes()).map(({ secrets, insecure, ...route }) => ({
          ...route, secret: insecure ? 'INSECURE_NO_AUTH' : show ? secrets : secrets.map(() => MASK),
        })),
      };
    },
    async subscribe(params: Params) {
      const method = 'webhooks.subscribe';
      const result = await (await webhooks()).subscribe({
        name: text(params, 'name', method), events: optionalText(params, 'events', method), prompt: optionalText(params, 'prompt', method),
        skills: optionalText(params, 'skills', method), deliver: optionalText(params, 'deliver', method), deliverExtra: optionalTextList(params, 'deliverExtra', method),
        secret: optionalText(params, 'secret', method), description: optionalText(params, 'description', method),
      });
      if (!result.ok) throw new OperatorError('invalid', result.error.message, result.error.hint, result.error.details);
      return { ...result.value, url: await urlOf(result.value.subscription.name) };
    },
    async unsubscribe(params: Params) {
      const result = await (await webhooks()).unsubscribe(text(params, 'name', 'webhooks.unsubscribe'));
      if (!result.ok) throw new OperatorError('not_found', result.error.message, result.error.hint);
      return result.value;
    },
    async test(params: Params) {
      const route = text(params, 'route', 'webhooks.test');
      const payload = params.payload;
      if (payload !== undefined && (payload === null || typeof payload !== 'object' || Array.isArray(payload))) {
        throw new OperatorError('invalid', 'webhooks.test: "payload" must be a JSON object', 'Webhook bodies are JSON objects, e.g. {"action":"opened"}.');
      }
      const platform = await webhooks();
      running(`a test request to route "${route}"`);
      const event = optionalText(params, 'event', 'webhooks.test');
      return checked(await platform.test(route, { event, payload: payload as Record<string, unknown> | undefined }), 'Test not sent', 'not_found', 'See the routes: switchboard webhook list');
    },
    async replay(params: Params) {
      const deliveryId = text(params, 'deliveryId', 'webhooks.replay');
      const copy = checked(await (await webhooks()).replay(deliveryId), 'Not replayed', 'not_found');
      return { deliveryId: copy.deliveryId, route: copy.route, replayOf: deliveryId };
    },
    async deliveries(params: Params) {
      return (await webhooks()).recent({ route: optionalText(params, 'route', 'webhooks.deliveries'), limit: optionalCount(params, 'limit', 'webhooks.deliveries', 20) });
    },
    async delivery(params: Params) {
      const deliveryId = text(params, 'deliveryId', 'webhooks.delivery');
      const found = await (await webhooks()).find(deliveryId);
      if (!found) throw new OperatorError('not_found', `No recorded webhook delivery "${deliveryId}"`, 'See recent ones: switchboard webhook deliveries');
      return found;
    },
    async secret(params: Params) {
      return { secret: checked(await (await webhooks()).secretFor(text(params, 'route', 'webhooks.secret')), 'No secret', 'not_found') };
    },
    async writeSecret(params: Params) {
      const route = text(params, 'route', 'webhooks.writeSecret');
      const secret = checked(await (await webhooks()).secretFor(route), 'No secret', 'not_found');
      const dir = path.join(core.home.root, 'run', 'secrets');
      // Only [A-Za-z0-9._-] in the file name: a route name never walks out of the folder.
      const file = path.join(dir, `${route.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_')}.secret`);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(file, `${secret}\n`, { mode: 0o600 });
      // writeFile keeps an existing file's mode: set it again.
      await chmod(file, 0o600);
      return { path: file };
    },
    async counts() {
      return (await core.gateway()).webhooks.counts();
    },
  } satisfies Implementation<WebhookOperations> as unknown as WebhookOperations;
}
