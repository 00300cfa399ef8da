import { formatKeyPath } from './key-path.js';
import type { ConfigFile } from './types.js';

/** Webhook keys that shape the static routes: a running gateway swaps the routes in when they change. */
const routeKeys = ['platforms.webhook.extra.secret', 'platforms.webhook.extra.rate_limit'];

export function shapesRoutes(key: string): boolean {
  return key.startsWith('platforms.webhook.extra.routes') || routeKeys.includes(key);
}

/**
 * What a running gateway applies within seconds (its config watch): MCP servers, and the routes when
 * its webhook platform runs; every other key waits for a restart.
 */
export function appliedLive(key: string, webhooksRunning: boolean): boolean {
  return key.startsWith('mcp_servers') || (webhooksRunning && shapesRoutes(key));
}

/** Which entries differ: one path per MCP server, route, webhook setting or platform, else per top-level key. */
export function changedKeys(before: ConfigFile, after: ConfigFile): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, at: string[], depth: (path: string[]) => boolean) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    const objects = isObject(a) || isObject(b);
    if (!objects || !depth(at)) return void out.push(formatKeyPath(at));
    const left = isObject(a) ? a : {};
    const right = isObject(b) ? b : {};
    for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) walk(left[key], right[key], [...at, key], depth);
  };
  // Descend into the maps whose entries are applied one by one, and into the platforms.
  const descend = (at: string[]) => {
    const path = at.join('.');
    return at.length === 0 || path === 'mcp_servers' || path === 'platforms' || path === 'platforms.webhook' || path === 'platforms.webhook.extra' || path === 'platforms.webhook.extra.routes';
  };
  const { $schema: _before, ...left } = before;
  const { $schema: _after, ...right } = after;
  walk(left, right, [], descend);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
