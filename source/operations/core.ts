import type { HomeLayout } from '../config/home.js';
import type { ConfigCommands } from '../gateway/config-commands.js';
import type { Gateway } from '../gateway/gateway.js';
import type { JobsCore } from '../scheduler/scheduler.js';

/**
 * What operations act on. Inside a running gateway (headless or the console's) `where` is
 * `gateway`; in a CLI command's own process while no gateway runs it is `local`, and the gateway is
 * built on first use but never started: its store, jobs, subscriptions and config work the same,
 * only what needs the running gateway (the listener, live runs) says it is unavailable.
 */
export interface OperationsCore {
  home: HomeLayout;
  where: 'gateway' | 'local';
  version: string;
  /** The gateway; in a CLI command's own process its code is loaded and it is built on first use. */
  gateway(): Promise<Gateway>;
  /** The gateway's jobs; in a CLI command's own process, built without the rest of the gateway until that is needed. */
  jobs(): Promise<JobsCore>;
  /** config.json commands; usable while the file does not pass the check (so `config set` can fix it). */
  config(): ConfigCommands;
  /** `local` only: start what a run needs (MCP servers' first connection round) and stop it afterwards. */
  withRuntime?<T>(work: () => Promise<T>): Promise<T>;
}
