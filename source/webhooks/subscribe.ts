import { generateSecret } from '../config/default-config.js';
import { ConfigError } from '../config/errors.js';
import type { ConfigFile } from '../config/types.js';
import { slugify } from '../infra/slug.js';
import type { SkillsCheck } from '../agent/skills-check.js';
import type { SubscriptionBackend } from '../store/async-domains.js';
import type { Subscription } from '../store/webhook-subscriptions.js';
import { checkSecretChoice, checkTarget, commaList, extraPairs, subscriptionName } from './subscription-input.js';

/** `webhook subscribe <name>` as typed, from the CLI or the console's `/webhook subscribe`: unset options keep what a re-subscribe had. */
export interface SubscribeRequest {
  name: string;
  /** Comma-separated; `""` clears the list (all events). */
  events?: string;
  prompt?: string;
  /** Comma-separated. */
  skills?: string;
  deliver?: string;
  /** `key=value` pairs; given ones replace the previous set. */
  deliverExtra?: readonly string[];
  secret?: string;
  description?: string;
}

export interface Subscribed {
  subscription: Subscription;
  created: boolean;
  /** The secret was kept from the previous subscription of that name. */
  secretKept: boolean;
  /** A static route of that name wins: the subscription is not served until it is removed. */
  shadowed: boolean;
}

/** A refused request: `reason` for a notice, `error` (code and hint) for the CLI. */
export type SubscriptionResult<T> = { ok: true; value: T } | { ok: false; reason: string; error: ConfigError };

export interface SubscriptionDeps {
  subscriptions: SubscriptionBackend;
  /** The interpolated config: targets are checked against its platforms. */
  values: ConfigFile;
  /** The listener's bind address: INSECURE_NO_AUTH only on loopback. */
  host: string;
  isStaticRoute: (name: string) => boolean;
  now: () => number;
  /** Checks the skills a request names (as jobs do); without it any skill name is taken. */
  checkSkills?: SkillsCheck;
}

/** Creates or updates a dynamic route (spec 2.8) with the same rules for every front end. */
export function subscribeWebhook(deps: SubscriptionDeps, request: SubscribeRequest): Promise<SubscriptionResult<Subscribed>> {
  return refusalsAsValues(async () => {
    // A name that slugifies to another, taken one is refused (subscriptionName says how).
    const slug = slugify(request.name);
    const taken = slug !== '' && slug !== request.name.trim() && (await deps.subscriptions.get(slug)) !== undefined;
    const name = subscriptionName(request.name, () => taken);
    const previous = await deps.subscriptions.get(name);
    const deliver = request.deliver ?? previous?.deliver ?? 'log';
    const deliverExtra = request.deliverExtra && request.deliverExtra.length > 0 ? extraPairs(request.deliverExtra) : previous?.deliverExtra ?? {};
    checkTarget(deliver, deliverExtra, deps.values);
    checkSecretChoice(request.secret, deps.host);
    // Only skills this request gives: one removed since is each run's warning, not a reason to refuse other changes.
    const skills = request.skills !== undefined ? commaList(request.skills) : undefined;
    if (skills && skills.length > 0 && deps.checkSkills) {
      const checked = await deps.checkSkills(skills);
      if (!checked.ok) throw new ConfigError('UNKNOWN_SKILL', `--skills: ${checked.reason}`, 'Add the skill under the home\'s skills/ folder first, or leave it out.');
    }
    const { subscription, created } = await deps.subscriptions.save({
      name,
      secret: request.secret,
      events: request.events !== undefined ? commaList(request.events) : previous?.events ?? [],
      prompt: request.prompt ?? previous?.prompt ?? null,
      skills: skills ?? previous?.skills ?? [],
      deliver,
      deliverExtra,
      description: request.description ?? previous?.description ?? null,
    }, generateSecret, deps.now());
    return { subscription, created, secretKept: !created && request.secret === undefined, shadowed: deps.isStaticRoute(name) };
  });
}

/** Removes a dynamic route; a static route of that name is refused with the key to unset. */
export function unsubscribeWebhook(deps: Pick<SubscriptionDeps, 'subscriptions' | 'isStaticRoute'>, rawName: string): Promise<SubscriptionResult<{ name: string; shadowed: boolean }>> {
  return refusalsAsValues(async () => {
    const name = slugify(rawName);
    if (await deps.subscriptions.remove(name)) return { name, shadowed: deps.isStaticRoute(name) };
    if (deps.isStaticRoute(rawName)) {
      throw new ConfigError('STATIC_ROUTE', `"${rawName}" is a static route in config.json, not a subscription`,
        `Remove it with: switchboard config unset platforms.webhook.extra.routes.${rawName} (a running gateway drops it within seconds), or edit it with e in the console.`);
    }
    throw new ConfigError('NO_SUBSCRIPTION', `No subscription named "${name}"`, 'See them with: switchboard webhook list');
  });
}

async function refusalsAsValues<T>(work: () => Promise<T>): Promise<SubscriptionResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { ok: false, reason: `${error.message}. ${error.hint ?? ''}`.trim(), error };
  }
}
