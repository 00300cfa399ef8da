import { ConfigError } from '../config/errors.js';
import { INSECURE_NO_AUTH, isLoopback, SUBSCRIPTION_NAME } from './config.js';

/** Target kinds a route may name (spec 2.10); only `log` and `local` deliver today. */
export const TARGET_KINDS = ['log', 'local', 'github_comment', 'telegram', 'discord', 'slack', 'signal', 'sms', 'email'] as const;
export const BUILT_TARGETS = new Set(['log', 'local']);

export function subscriptionName(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!SUBSCRIPTION_NAME.test(name)) {
    throw new ConfigError('BAD_SUBSCRIPTION_NAME', `"${raw}" is not a valid subscription name`,
      'Use 1-64 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit (it becomes /webhooks/<name>).');
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

/** Refuses an unknown target kind; returns a warning for kinds not built yet. */
export function checkTarget(target: string): string | undefined {
  const kind = target.split(':')[0]!;
  if (!(TARGET_KINDS as readonly string[]).includes(kind)) {
    throw new ConfigError('BAD_TARGET', `--deliver "${target}" is not a delivery target`, `Use one of: ${TARGET_KINDS.join(', ')} (spec 2.10), e.g. --deliver log.`);
  }
  return BUILT_TARGETS.has(kind) ? undefined : `Target "${kind}" is not available yet: until the delivery targets land, its deliveries end as delivery_failed with that reason. Use log or local meanwhile.`;
}

export function checkSecretChoice(secret: string | undefined, host: string): void {
  if (secret === undefined) return;
  if (secret.length < 8 && secret !== INSECURE_NO_AUTH) throw new ConfigError('WEAK_SECRET', '--secret is shorter than 8 characters', 'Leave --secret out to have a strong one generated.');
  if (secret === INSECURE_NO_AUTH && !isLoopback(host)) {
    throw new ConfigError('INSECURE_NO_AUTH_EXPOSED', `${INSECURE_NO_AUTH} is refused: the listener binds ${host}, which is not a loopback address`,
      'It is for local development only: bind platforms.webhook.extra.host to 127.0.0.1, or leave --secret out.');
  }
}

/** `--payload '{"a":1}'` or `--payload @file.json`: a JSON object. */
export function payloadArgument(value: string | undefined, readFile: (file: string) => string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? readFile(value.slice(1)) : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('BAD_PAYLOAD', `--payload is not valid JSON${value.startsWith('@') ? ` (file ${value.slice(1)})` : ''}: ${(error as Error).message}`, 'Give a JSON object, inline or as @file.json.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError('BAD_PAYLOAD', '--payload must be a JSON object', 'Webhook bodies are JSON objects, e.g. --payload \'{"action":"opened"}\'.');
  return parsed as Record<string, unknown>;
}
