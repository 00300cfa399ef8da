import { resolveAgent } from '../agent/model-config.js';
import { ConfigError } from '../config/errors.js';
import type { HomeLayout } from '../config/home.js';
import { formatKeyPath } from '../config/key-path.js';
import { invalidConfigError, loadOrCreateConfig, resolveConfig, type ResolvedConfig } from '../config/load.js';
import type { ConfigFile } from '../config/types.js';
import { validateConfig, type ConfigIssue } from '../config/validate.js';
import { resolveControl } from '../control/config.js';
import { routeTargetIssues } from '../delivery/check-config.js';
import { resolveWebhooks } from '../webhooks/config.js';

export type ConfigCheck = { ok: true; resolved: ResolvedConfig } | { ok: false; issues: ConfigIssue[] };

/**
 * The one check of config.json: everything the gateway refuses at start, in one list. Gateway start,
 * `config validate`, `config set`, `mcp add`, console forms, `/install`, the `E` editor flow and the
 * config reload all call it, so no writer can save a file that the next start would refuse.
 */
export function checkConfig(file: unknown, home: HomeLayout, env: NodeJS.ProcessEnv = process.env): ConfigCheck {
  const schemaIssues = validateConfig(file);
  if (schemaIssues.length > 0) return { ok: false, issues: schemaIssues };
  const values = file as ConfigFile;
  let resolved: ResolvedConfig;
  try {
    resolved = resolveConfig(values, home, env);
  } catch (error) {
    return { ok: false, issues: [issueOf(error, '(root)')] };
  }
  const issues: ConfigIssue[] = [...promptIssues(values), ...serverUrlIssues(resolved.values), ...routeTargetIssues(resolved.values)];
  const attempt = (path: string, check: () => unknown) => {
    try {
      check();
    } catch (error) {
      issues.push(issueOf(error, path));
    }
  };
  attempt('model', () => resolveAgent(resolved));
  attempt('control', () => resolveControl(resolved.values, env));
  if (resolved.webhook.enabled) attempt('platforms.webhook.extra.routes', () => resolveWebhooks(resolved));
  return issues.length > 0 ? { ok: false, issues } : { ok: true, resolved };
}

/** A route prompt that renders nothing would send the model an empty prompt: refuse it (no prompt at all means the whole payload). */
function promptIssues(values: ConfigFile): ConfigIssue[] {
  const routes = values.platforms?.webhook?.extra?.routes ?? {};
  return Object.entries(routes)
    .filter(([, route]) => typeof route.prompt === 'string' && route.prompt.trim() === '')
    .map(([name]) => ({
      path: formatKeyPath(['platforms', 'webhook', 'extra', 'routes', name, 'prompt']),
      reason: 'is empty: the model would get an empty prompt (remove the key to send the whole payload as JSON, or write a template)',
    }));
}

/**
 * An MCP server's `url` (after interpolation) must be an http(s) address: the transports speak
 * nothing else, and an install link of the server could not carry it. The URL itself is not
 * repeated (it may hold a token).
 */
function serverUrlIssues(values: ConfigFile): ConfigIssue[] {
  return Object.entries(values.mcp_servers ?? {}).flatMap(([name, server]) => {
    if (typeof server.url !== 'string') return [];
    let protocol: string;
    try {
      protocol = new URL(server.url).protocol;
    } catch {
      return [{ path: formatKeyPath(['mcp_servers', name, 'url']), reason: 'is not a URL: give an http:// or https:// address' }];
    }
    return protocol === 'http:' || protocol === 'https:' ? [] : [{ path: formatKeyPath(['mcp_servers', name, 'url']), reason: `must be an http:// or https:// address, not ${protocol}` }];
  });
}

function issueOf(error: unknown, path: string): ConfigIssue {
  if (!(error instanceof ConfigError)) throw error;
  return { path, reason: [error.message, error.hint].filter(Boolean).join('. ') };
}

/**
 * config.json for a gateway about to be built: created on first run, then checkConfig: every
 * problem at once, in the same words `config validate` uses.
 */
export function loadCheckedConfig(home: HomeLayout, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const { file } = loadOrCreateConfig(home);
  const checked = checkConfig(file, home, env);
  if (!checked.ok) throw invalidConfigError(checked.issues, home.configFile);
  return checked.resolved;
}
