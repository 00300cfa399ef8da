import type { ConfigFile } from '../config/types.js';
import { platformSettings } from '../delivery/platforms.js';
import { resolveTarget } from '../delivery/targets.js';
import { readConfigFile } from '../infra/config-file.js';
import type { Checked } from './job-input.js';

/** A job's `deliver` checked where it is written, against the platforms as configured (spec 2.10). */
export type DeliverCheck = (target: string) => Checked<unknown>;

/**
 * `configFile`: where a running gateway's config came from. A platform enabled there after the
 * gateway loaded it (platforms apply at restart) is refused with that reason, not as "not enabled".
 */
export function jobDeliverCheck(values: ConfigFile, configFile?: string): DeliverCheck {
  const platforms = platformSettings(values);
  return (target) => {
    const checked = resolveTarget(target, {}, platforms, { for: 'job' });
    const kind = target.split(':')[0]!;
    if (checked.ok || !configFile || enabledIn(values, kind) || !enabledIn(onDisk(configFile), kind)) return checked;
    return { ok: false, reason: `platforms.${kind} is enabled in config.json, but the running gateway loaded its config before that change (platforms apply at a restart): restart the gateway, then deliver to ${kind}` };
  };
}

function enabledIn(values: ConfigFile | undefined, kind: string): boolean {
  return (values?.platforms as Record<string, { enabled?: unknown } | undefined> | undefined)?.[kind]?.enabled === true;
}

function onDisk(configFile: string): ConfigFile | undefined {
  try {
    return readConfigFile(configFile) as ConfigFile | undefined;
  } catch {
    return undefined; // unreadable now: the live check's reason stands
  }
}
