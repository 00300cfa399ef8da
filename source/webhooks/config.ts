import { ConfigError } from '../config/errors.js';
import type { ResolvedConfig } from '../config/load.js';
import type { RouteConfig, SecretValue } from '../config/types.js';
import type { DeliverExtra } from '../delivery/types.js';
import type { Subscription } from '../store/webhook-subscriptions.js';

export const INSECURE_NO_AUTH = 'INSECURE_NO_AUTH';
export const DEFAULT_RATE_LIMIT = 30;
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 3600;
export const DEFAULT_MAX_CONCURRENT_RUNS = 4;

/** One route as the intake uses it, static (config.json) or dynamic (a subscription in the store). */
export interface ResolvedRoute {
  name: string;
  source: 'static' | 'subscription';
  /** Any of these verifies a request (rotation). Empty when `insecure`. */
  secrets: string[];
  insecure: boolean;
  events: string[];
  prompt?: string;
  skills: string[];
  deliver: string;
  /** Values keep their JSON type; strings are templates. */
  deliverExtra: DeliverExtra;
  rateLimit: number;
  description?: string;
}

export interface ResolvedWebhooks {
  enabled: boolean;
  host: string;
  port: number;
  rateLimit: number;
  maxBodyBytes: number;
  idempotencyTtlMs: number;
  maxConcurrentRuns: number;
  /** GET /metrics on the listener (Prometheus). */
  metrics: boolean;
  /** Static routes by exact name. */
  routes: Map<string, ResolvedRoute>;
}

/**
 * The webhook platform's typed settings. Throws ConfigError for what would make a route unsafe:
 * no secret at all, an unresolved `${VAR}` secret, or INSECURE_NO_AUTH on a non-loopback bind.
 */
export function resolveWebhooks(config: ResolvedConfig, boundHost?: string): ResolvedWebhooks {
  const webhook = config.values.platforms?.webhook;
  const extra = webhook?.extra ?? {};
  // A running gateway swapping routes in checks INSECURE_NO_AUTH against the address it is bound to,
  // not a host that a restart would bind.
  const host = boundHost ?? extra.host ?? '0.0.0.0';
  const rateLimit = extra.rate_limit ?? DEFAULT_RATE_LIMIT;
  const configFile = config.home.configFile;
  const routes = new Map<string, ResolvedRoute>();
  for (const [name, route] of Object.entries(extra.routes ?? {})) {
    const key = `platforms.webhook.extra.routes.${name}`;
    const hasOwn = Object.hasOwn(route, 'secret');
    const secret = hasOwn ? route.secret : extra.secret;
    const where = hasOwn ? `${key}.secret` : 'platforms.webhook.extra.secret';
    const secrets = checkSecrets(secret, name, where, host, configFile);
    routes.set(name, staticRoute(name, route, secrets, rateLimit));
  }
  return {
    enabled: webhook?.enabled === true,
    host,
    port: extra.port ?? 8644,
    rateLimit,
    maxBodyBytes: extra.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    idempotencyTtlMs: (extra.idempotency_ttl_seconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS) * 1000,
    maxConcurrentRuns: extra.max_concurrent_runs ?? DEFAULT_MAX_CONCURRENT_RUNS,
    metrics: extra.metrics === true,
    routes,
  };
}

function checkSecrets(secret: SecretValue | undefined, route: string, where: string, host: string, configFile: string): string[] {
  const list = secret === undefined ? [] : Array.isArray(secret) ? secret : [secret];
  if (list.length === 0 || list.some((value) => value === '')) {
    throw new ConfigError('ROUTE_WITHOUT_SECRET', `Webhook route "${route}" has no secret (${list.length === 0 ? 'neither the route nor platforms.webhook.extra.secret sets one' : `${where} is empty`})`,
      `Set platforms.webhook.extra.routes.${route}.secret (or platforms.webhook.extra.secret) in ${configFile}; for local development only, the value ${INSECURE_NO_AUTH} turns verification off on a loopback host.`);
  }
  const unresolved = list.find((value) => /\$\{[^{}]+\}/.test(value));
  if (unresolved) {
    throw new ConfigError('ROUTE_SECRET_UNRESOLVED', `Webhook route "${route}": ${where} references ${unresolved.match(/\$\{[^{}]+\}/)![0]}, which is not set`,
      'Define the variable in $SWITCHBOARD_HOME/.env or the environment; an unresolved placeholder is never used as a secret.');
  }
  if (list.includes(INSECURE_NO_AUTH)) {
    if (!isLoopback(host)) {
      throw new ConfigError('INSECURE_NO_AUTH_EXPOSED', `Webhook route "${route}" uses ${INSECURE_NO_AUTH} but the listener binds ${host}, which is not a loopback address`,
        `${INSECURE_NO_AUTH} is for local development: set platforms.webhook.extra.host to 127.0.0.1, or give the route a real secret in ${configFile}.`);
    }
    return [];
  }
  return list;
}

function staticRoute(name: string, route: RouteConfig, secrets: string[], rateLimit: number): ResolvedRoute {
  return {
    name,
    source: 'static',
    secrets,
    insecure: secrets.length === 0,
    events: route.events ?? [],
    prompt: route.prompt,
    skills: route.skills ?? [],
    deliver: route.deliver ?? 'log',
    deliverExtra: { ...route.deliver_extra },
    rateLimit: route.rate_limit ?? rateLimit,
    description: route.description,
  };
}

/** A stored subscription as a route; INSECURE_NO_AUTH counts only on a loopback host. */
export function subscriptionRoute(subscription: Subscription, settings: Pick<ResolvedWebhooks, 'host' | 'rateLimit'>): ResolvedRoute {
  const insecure = subscription.secret === INSECURE_NO_AUTH;
  return {
    name: subscription.name,
    source: 'subscription',
    // A non-loopback host turns an insecure subscription into one nothing can verify: every request gets 401.
    secrets: insecure ? [] : [subscription.secret],
    insecure: insecure && isLoopback(settings.host),
    events: subscription.events,
    prompt: subscription.prompt ?? undefined,
    skills: subscription.skills,
    deliver: subscription.deliver,
    deliverExtra: subscription.deliverExtra,
    rateLimit: settings.rateLimit,
    description: subscription.description ?? undefined,
  };
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === '::ffff:127.0.0.1';
}
