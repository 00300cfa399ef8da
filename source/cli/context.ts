import fs from 'node:fs';
import type { Command } from './commander.js';
import { resolveHome, type HomeLayout } from '../config/home.js';
import { loadOrCreateConfig, type LoadedConfig } from '../config/load.js';
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

/**
 * Writes the first-run default config.json (and says so) when the home has none; never validates (a
 * broken file stays fixable). True when it wrote one.
 */
export function ensureConfig(home: HomeLayout, homeFlag: string | undefined): boolean {
  if (fs.existsSync(home.configFile)) return false;
  return loadConfigFor(home, homeFlag).created;
}

function announceFirstRun(home: HomeLayout, loaded: LoadedConfig, homeFlag: string | undefined): void {
  const extra = loaded.file.platforms?.webhook?.extra;
  const homeArg = homeFlag ? ` --home ${JSON.stringify(homeFlag)}` : '';
  say(`First run: created ${home.configFile}`);
  say(`  Demo webhook route:  http://${extra?.host ?? '127.0.0.1'}:${extra?.port ?? 8644}/webhooks/demo`);
  say(`  Its secret:          switchboard config get platforms.webhook.extra.routes.demo.secret${homeArg}`);
  say(`  Model provider:      dry-run (no model is called; see "model" in the README to wire one)`);
}
