import type { ConfigFile } from '../config/types.js';
import { platformSettings } from '../delivery/platforms.js';
import { resolveTarget } from '../delivery/targets.js';
import type { Checked } from './job-input.js';

/** A job's `deliver` checked where it is written, against the platforms as configured (spec 2.10). */
export type DeliverCheck = (target: string) => Checked<unknown>;

export function jobDeliverCheck(values: ConfigFile): DeliverCheck {
  const platforms = platformSettings(values);
  return (target) => resolveTarget(target, {}, platforms, { for: 'job' });
}
