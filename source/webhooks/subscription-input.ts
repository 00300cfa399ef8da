import { ConfigError } from '../config/errors.js';
import type { ConfigFile } from '../config/types.js';
import { platformSettings } from '../delivery/platforms.js';
import { resolveTarget } from '../delivery/targets.js';
import type { DeliverExtra } from '../delivery/types.js';
import { slugify } from '../infra/slug.js';
import { INSECURE_NO_AUTH, isLoopback } from './config.js';

/**
 * The subscription's name as a URL slug ("My Hook" -> "my-hook", spec 2.8 leaves names open). A name
 * that only becomes an existing one by slugifying is refused rather than silently updating that one.
 */
export function subscriptionName(raw: string, exists: (name: string) => boolean): string {
  const name = slugify(raw);
  if (name === '') {
    throw new ConfigError('BAD_SUBSCRIPTION_NAME', `"${raw}" is not a usable subscription name: it has no letters or digits`,
      'Use letters, digits, "_" and "-" (it becomes /webhooks/<name>; other characters turn into "-").');
  }
  if (name !== raw.trim() && exists(name)) {
    throw new ConfigError('SUBSCRIPTION_NAME_TAKEN', `"${raw}" becomes "${name}", which is already a subscription`,
      `To change that subscription, name it exactly: ${name}; otherwise choose another name.`);
  }
  return name;
}

/** `a, b,,c` -> [a, b, c]. */
export function commaList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Repeated `--deliver-extra key=value`. */
export function extraPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ConfigError('BAD_DELIVER_EXTRA', `--deliver-extra "${pair}" is not key=value`, 'Write it like --deliver-extra repo=owner/name --deliver-extra pr_number={number}.');
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

/**
 * Checks `--deliver` the way static routes are checked at startup (known kind, platform enabled,
 * credentials, recipient), so a subscription cannot be created with a target that cannot deliver.
 */
export function checkTarget(target: string, extra: DeliverExtra, values: ConfigFile): void {
  const checked = resolveTarget(target, extra, platformSettings(values), { for: 'webhook' });
  if (!checked.ok) throw new ConfigError('BAD_TARGET', `--deliver "${target}": ${checked.reason}`, 'Fix the platform settings in config.json, or use --deliver log or local.');
}

export function checkSecretChoice(secret: string | undefined, host: string): void {
  if (secret === undefined) return;
  if (secret.length < 8 && secret !== INSECURE_NO_AUTH) throw new ConfigError('WEAK_SECRET', '--secret is shorter than 8 characters', 'Leave --secret out to have a strong one generated.');
  if (secret === INSECURE_NO_AUTH && !isLoopback(host)) {
    throw new ConfigError('INSECURE_NO_AUTH_EXPOSED', `${INSECURE_NO_AUTH} is refused: the listener binds ${host}, which is not a loopback address`,
      'It is for local development only: bind platforms.webhook.extra.host to 127.0.0.1, or leave --secret out.');
  }
}

