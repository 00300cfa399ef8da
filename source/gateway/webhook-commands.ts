import type { SkillsCheck } from '../agent/skills-check.js';
import type { ConfigFile } from '../config/types.js';
import { ConfigError } from '../config/errors.js';
import type { DeliveryState } from '../store/webhook-deliveries.js';
import type { WebhookPlatform } from '../webhooks/platform.js';
import { subscribeWebhook, unsubscribeWebhook, type SubscribeRequest, type Subscribed, type SubscriptionResult } from '../webhooks/subscribe.js';
import type { GatewayEvents } from './events.js';
import { listenerUrl } from './webhook-listener.js';

/** Webhook commands: replay a recorded delivery, send a signed test request through the intake, subscribe (spec 2.8). */
export type WebhookCommands = Pick<WebhookPlatform, 'replay' | 'test' | 'find' | 'secretFor' | 'recent'> & {
  /** False while the platform is disabled in config.json. */
  enabled: boolean;
  subscribe(request: SubscribeRequest): Promise<SubscriptionResult<Subscribed>>;
  unsubscribe(name: string): Promise<SubscriptionResult<{ name: string; shadowed: boolean }>>;
  /** Static routes and subscriptions with their URLs (null while the listener is not bound). */
  routes(): Promise<WebhookRouteView[]>;
  /**
   * Recorded deliveries per state (null while the platform is disabled). A count over the whole
   * history, so a command, not part of snapshot(), which the console reads on every frame.
   */
  counts(): Promise<Record<DeliveryState, number> | null>;
};

export interface WebhookRouteView {
  name: string;
  kind: 'static' | 'subscription';
  url: string | null;
  events: string[];
  deliver: string;
  description: string | null;
  /** Never shown unless asked for (operations mask them). */
  secrets: string[];
  insecure: boolean;
  /** A subscription hidden by a static route of its name. */
  shadowed: boolean;
}

const webhookDisabled = 'the webhook platform is disabled: switchboard config set platforms.webhook.enabled true, then restart the gateway';

/** The gateway's webhook commands over its platform (null while disabled: each says how to enable it). */
export function createWebhookCommands(deps: {
  platform: WebhookPlatform | null;
  events: GatewayEvents;
  now: () => number;
  /** The listener's configured address, for URLs before it is bound. */
  host: string;
  port: number;
  /** config.json as it is now (subscriptions check their targets against it). */
  values: () => ConfigFile;
  /** The bound listener's URL, null until it listens. */
  listenerUrl: () => string | null;
  /** Checks the skills a subscription names. */
  checkSkills?: SkillsCheck;
}): WebhookCommands {
  const { platform: webhooks, events } = deps;
  const subscriptionDeps = (platform: WebhookPlatform) => ({
    subscriptions: platform.subscriptions, values: deps.values(), host: deps.host, now: deps.now,
    isStaticRoute: (name: string) => platform.routeNames().static.includes(name),
    ...(deps.checkSkills ? { checkSkills: deps.checkSkills } : {}),
  });
  const disabled = <T>(): SubscriptionResult<T> => ({ ok: false, reason: webhookDisabled, error: new ConfigError('WEBHOOK_DISABLED', webhookDisabled) });
  return {
    replay: async (deliveryId) => webhooks ? webhooks.replay(deliveryId) : { ok: false, reason: webhookDisabled },
    test: async (route, input) => webhooks ? webhooks.test(route, input) : { ok: false, reason: webhookDisabled },
    enabled: webhooks !== null,
    find: async (deliveryId) => webhooks?.find(deliveryId),
    recent: async (options) => webhooks?.recent(options) ?? [],
    secretFor: async (route) => webhooks ? webhooks.secretFor(route) : { ok: false, reason: webhookDisabled },
    counts: async () => webhooks?.counts() ?? null,
    subscribe: async (request) => {
      const result = webhooks ? await subscribeWebhook(subscriptionDeps(webhooks), request) : disabled<Subscribed>();
      if (result.ok) {
        await webhooks?.subscriptionsChanged();
        events.emit('webhook.routesChanged', { name: result.value.subscription.name, change: 'subscribed' });
      }
      return result;
    },
    unsubscribe: async (name) => {
      const result = webhooks ? await unsubscribeWebhook(subscriptionDeps(webhooks), name) : disabled<{ name: string; shadowed: boolean }>();
      if (result.ok) {
        await webhooks?.subscriptionsChanged();
        events.emit('webhook.routesChanged', { name: result.value.name, change: 'unsubscribed' });
      }
      return result;
    },
    routes: async () => {
      if (!webhooks) return [];
      const { static: fixed } = webhooks.routeNames();
      const url = (name: string) => `${deps.listenerUrl() ?? listenerUrl(deps.host, deps.port)}/webhooks/${encodeURIComponent(name)}`;
      return [
        ...fixed.map((name) => webhooks.staticRoute(name)!).map((route) => ({
          name: route.name, kind: 'static' as const, url: url(route.name), events: route.events, deliver: route.deliver, description: route.description ?? null,
          secrets: route.secrets, insecure: route.insecure, shadowed: false,
        })),
        ...(await webhooks.subscriptions.list()).map((s) => ({
          name: s.name, kind: 'subscription' as const, url: url(s.name), events: s.events, deliver: s.deliver, description: s.description,
          secrets: [s.secret], insecure: s.secret === 'INSECURE_NO_AUTH', shadowed: fixed.includes(s.name),
        })),
      ];
    },
  };
}
