import type { HomeLayout } from '../config/home.js';
import type { ConfigCommands } from '../gateway/config-commands.js';
import type { Gateway } from '../gateway/gateway.js';

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
  gateway(): Gateway;
  /** config.json commands; usable while the file does not pass the check (so `config set` can fix it). */
  config(): ConfigCommands;
  /** `local` only: start what a run needs (MCP servers' first connection round) and stop it afterwards. */
  withRuntime?<T>(work: () => Promise<T>): Promise<T>;
}
