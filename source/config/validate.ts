import type { ErrorObject } from 'ajv';
import * as generated from './config-validator.generated.js';
import { closest } from './suggest.js';
import { slugify } from '../infra/slug.js';
import { formatKeyPath, pointerToSegments } from './key-path.js';
import { checkClientMetadataUrl } from '../mcp/oauth-config.js';
import { isUtc } from '../infra/utc-zone.js';

/** One problem in config.json: where (key path) and why. */
export interface ConfigIssue {
  path: string;
  reason: string;
}

type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * config.schema.json compiled ahead of time (scripts/gen-config-validator.ts, run by `npm run
 * build`): compiling it here cost every command about 150 ms.
 */
const compiled = generated as unknown as Record<'config' | 'route' | 'mcp_server' | 'job', ValidateFunction>;

/** Every schema and semantic problem at once, in document order. An empty list means valid. */
export function validateConfig(config: unknown): ConfigIssue[] {
  const validate = compiled.config;
  const issues = validate(config) ? [] : describe(validate.errors ?? []);
  return [...issues, ...semanticIssues(config)];
}

/** Compiles a `$defs` entry (route, mcp_server, job) for validating one piece on its own. */
export function validateDefinition(name: 'route' | 'mcp_server' | 'job', value: unknown, at: string[] = []): ConfigIssue[] {
  const validate = compiled[name];
  return validate(value) ? [] : describe(validate.errors ?? [], at);
}

function describe(errors: ErrorObject[], prefix: string[] = []): ConfigIssue[] {
  // anyOf failures report every branch; keep only the summary for that spot.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && anyOfPaths.has(error.instancePath)) continue;
    const issue = toIssue(error, prefix);
    if (!issue) continue;
    const key = `${issue.path}\u0000${issue.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(error: ErrorObject, prefix: string[]): ConfigIssue | undefined {
  const at = [...prefix, ...pointerToSegments(error.instancePath)];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const suggestion = closest(key, known);
      const hint = suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? `; known keys: ${known.join(', ')}` : '';
      return { path: formatKeyPath([...at, key]), reason: `unknown key${hint}` };
    }
    case 'propertyNames':
      return undefined; // reported through the 'pattern' error on the name itself
    case 'pattern':
      if (params.propertyName !== undefined || error.propertyName !== undefined) {
        const name = String(error.propertyName ?? params.propertyName);
        // A route name is its URL (/webhooks/<name>): a config key cannot be renamed silently, so say what to rename it to.
        if (at.at(-1) === 'routes' && slugify(name) !== '') {
          return { path: formatKeyPath([...at, name]), reason: `route name "${name}" is not URL-safe (lower-case letters, digits, "_" and "-"): rename it to "${slugify(name)}"` };
        }
        return { path: formatKeyPath([...at, name]), reason: `name "${name}" is not allowed: it must match ${String(params.pattern)}` };
      }
      return { path: formatKeyPath(at), reason: `must match ${String(params.pattern)}` };
    case 'type':
      return { path: formatKeyPath(at), reason: `must be ${article(String(params.type))} (got ${typeName(error.data)})` };
    case 'enum':
      return { path: formatKeyPath(at), reason: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(error.data)})` };
    case 'anyOf':
      return { path: formatKeyPath(at), reason: `must be ${describeAnyOf(error.schema)} (got ${typeName(error.data)})` };
    case 'required':
      return { path: formatKeyPath([...at, String(params.missingProperty)]), reason: 'is required' };
    default:
      return { path: formatKeyPath(at), reason: error.message ?? error.keyword };
  }
}

function describeAnyOf(branches: unknown): string {
  const names = (branches as Array<{ type?: string; enum?: unknown[]; items?: { type?: string } }>).map((branch) => {
    if (branch.enum) return `one of ${branch.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    if (branch.type === 'array') return `a list of ${branch.items?.type ?? 'value'}s`;
    return article(branch.type ?? 'value');
  });
  return names.join(' or ');
}

function article(type: string): string {
  if (type.includes(',')) return type.split(',').map(article).join(' or ');
  if (type === 'array') return 'a list';
  if (type === 'object') return 'an object';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value;
}

/** Checks the schema cannot express. */
function semanticIssues(config: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const servers = (config as { mcp_servers?: unknown } | null)?.mcp_servers;
  if (servers && typeof servers === 'object') {
    for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
      const unsafe = unsafeServerName(name);
      if (unsafe) issues.push({ path: formatKeyPath(['mcp_servers', name]), reason: `"${name}" cannot name a server: ${unsafe} (use letters, digits, ".", "_" or "-")` });
      const url = (entry as { oauth?: { client_metadata_url?: unknown } } | null)?.oauth?.client_metadata_url;
      // A ${VAR} reference is checked once resolved (the server entry then reports it).
      if (typeof url !== 'string' || url.includes('${')) continue;
      const checked = checkClientMetadataUrl(url);
      if (!checked.ok) issues.push({ path: formatKeyPath(['mcp_servers', name, 'oauth', 'client_metadata_url']), reason: `${checked.reason} (spec 5.3: https, a path, no fragment, no userinfo, no . or .. segments)` });
    }
  }
  const timezone = (config as { timezone?: unknown } | null)?.timezone;
  if (typeof timezone === 'string' && !isTimeZone(timezone)) {
    issues.push({ path: 'timezone', reason: `"${timezone}" is not an IANA time zone (e.g. "Europe/Berlin", "UTC")` });
  }
  return issues;
}

/**
 * Why a server name is refused, or undefined: names become file names (token files, stderr logs)
 * and object keys, so path segments and the names of JavaScript's object internals are out (the
 * schema's name pattern already refuses separators).
 */
export function unsafeServerName(name: string): string | undefined {
  if (name === '.' || name === '..') return 'it is a path segment';
  if (['__proto__', 'constructor', 'prototype'].includes(name)) return 'it is reserved by JavaScript objects';
  return undefined;
}

/** True when `name` is an IANA zone this runtime knows (UTC without asking ICU: see formatInZone). */
function isTimeZone(name: string): boolean {
  if (isUtc(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
