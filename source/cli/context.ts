import fs from 'node:fs';
import type { Command } from 'commander';
import { resolveHome, type HomeLayout } from '../config/home.js';
import { loadOrCreateConfig, resolveConfig, type LoadedConfig, type ResolvedConfig } from '../config/load.js';
import { createLogger, type Logger } from '../infra/logger.js';
import { openStore, type Store } from '../store/database.js';
import { say } from './output.js';

export function homeOf(command: Command): HomeLayout {
  const options = command.optsWithGlobals<{ home?: string }>();
  return resolveHome(options.home);
}

/** Loads config.json, creating the first-run default and telling the operator about it. */
export function loadConfigFor(home: HomeLayout, homeFlag: string | undefined): LoadedConfig {
  const loaded = loadOrCreateConfig(home);
  if (loaded.created) announceFirstRun(home, loaded, homeFlag);
  return loaded;
}

/** Writes the first-run default config.json (and says so) when the home has none; never validates (a broken file stays fixable). */
export function ensureConfig(home: HomeLayout, homeFlag: string | undefined): void {
  if (fs.existsSync(home.configFile)) return;
  loadConfigFor(home, homeFlag);
}

function announceFirstRun(home: HomeLayout, loaded: LoadedConfig, homeFlag: string | undefined): void {
  const extra = loaded.file.platforms?.webhook?.extra;
  const homeArg = homeFlag ? ` --home ${JSON.stringify(homeFlag)}` : '';
  say(`First run: created ${home.configFile}`);
  say(`  Demo webhook route:  http://${extra?.host ?? '127.0.0.1'}:${extra?.port ?? 8644}/webhooks/demo`);
  say(`  Its secret:          switchboard config get platforms.webhook.extra.routes.demo.secret${homeArg}`);
  say(`  Model provider:      dry-run (no model is called; see "model" in the README to wire one)`);
}

export interface CliCore {
  home: HomeLayout;
  config: ResolvedConfig;
  logger: Logger;
  store: Store;
}

/** For commands that work in-process: config, a file-only logger and the store, closed afterwards. */
export async function withCliCore<T>(command: Command, work: (core: CliCore) => T | Promise<T>): Promise<T> {
  const home = homeOf(command);
  const { file } = loadConfigFor(home, command.optsWithGlobals<{ home?: string }>().home);
  const config = resolveConfig(file, home);
  const { logger, close } = createLogger({ file: home.gatewayLog, level: config.logLevel, mode: 'quiet' });
  const store = openStore(home.stateDb);
  try {
    return await work({ home, config, logger, store });
  } finally {
    store.close();
    close();
  }
}
