import type { ConfigFile } from '../config/types.js';
import type { ConfigIssue } from '../config/validate.js';
import { formatKeyPath } from '../config/key-path.js';
import { platformSettings } from './platforms.js';
import { resolveTarget } from './targets.js';

/**
 * Every static route's `deliver` checked against the platforms as configured (after `${VAR}`
 * interpolation): unknown kinds, disabled platforms, missing credentials or recipients.
 */
export function routeTargetIssues(values: ConfigFile): ConfigIssue[] {
  const platforms = platformSettings(values);
  const routes = values.platforms?.webhook?.extra?.routes ?? {};
  const issues: ConfigIssue[] = [];
  for (const [name, route] of Object.entries(routes)) {
    const checked = resolveTarget(route.deliver ?? 'log', route.deliver_extra ?? {}, platforms, { for: 'webhook' });
    if (!checked.ok) issues.push({ path: formatKeyPath(['platforms', 'webhook', 'extra', 'routes', name, 'deliver']), reason: checked.reason });
  }
  return issues;
}
