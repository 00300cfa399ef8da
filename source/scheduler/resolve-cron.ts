import path from 'node:path';
import type { ResolvedConfig } from '../config/load.js';

export interface ResolvedCron {
  timezone: string;
  scriptTimeoutMs: number;
  /** Where scripts for agent-created jobs must live. */
  scriptsDir: string;
}

export const DEFAULT_SCRIPT_TIMEOUT_SECONDS = 300;

/** The scheduler's settings from the checked config. */
export function resolveCron(config: ResolvedConfig): ResolvedCron {
  return {
    timezone: config.timezone,
    scriptTimeoutMs: (config.values.cron?.script_timeout_seconds ?? DEFAULT_SCRIPT_TIMEOUT_SECONDS) * 1000,
    scriptsDir: path.join(config.home.root, 'scripts'),
  };
}
