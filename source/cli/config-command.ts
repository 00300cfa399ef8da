import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { getAt, parseCliValue, setAt } from '../config/edit.js';
import type { HomeLayout } from '../config/home.js';
import { formatKeyPath, parseKeyPath } from '../config/key-path.js';
import { invalidConfigError, resolveConfig } from '../config/load.js';
import { routeTargetIssues } from '../delivery/check-config.js';
import { maskSecrets } from '../config/mask.js';
import { validateConfig } from '../config/validate.js';
import { runningGateway } from '../gateway/lock.js';
import { appliedLive, changedKeys } from '../config/changed-keys.js';
import { writeConfigFile } from '../infra/config-file.js';
import { createAuditLog } from '../store/audit.js';
import { openStore } from '../store/database.js';
import { homeOf, loadConfigFor } from './context.js';
import { print, say } from './output.js';

export function configCommand(): Command {
  const config = new Command('config').description('Show, check and change config.json');

  config.command('path').description('Print the path of config.json').action((_options, command: Command) => {
    print(homeOf(command).configFile);
  });

  config.command('show').description('Print config.json with secrets masked').action((_options, command: Command) => {
    const { file } = load(command);
    print(JSON.stringify(maskSecrets(file), undefined, 2));
  });

  config.command('validate').description('Check config.json against config.schema.json; lists every problem').action((_options, command: Command) => {
    const home = homeOf(command);
    const { file } = load(command); // throws the full list of schema problems when invalid
    const targetIssues = routeTargetIssues(resolveConfig(file, home).values);
    if (targetIssues.length > 0) throw invalidConfigError(targetIssues, home.configFile);
    say(`${home.configFile} is valid.`);
  });

  config
    .command('get <key>')
    .description('Print one value, e.g. platforms.webhook.extra.port (secrets are shown: you asked for them)')
    .action((key: string, _options, command: Command) => {
      const { file } = load(command);
      const value = getAt(file, keyPath(key));
      if (value === undefined) throw new ConfigError('KEY_NOT_SET', `${key} is not set in config.json`, 'See the configuration reference in the README for defaults.');
      print(typeof value === 'string' ? value : JSON.stringify(value, undefined, 2));
    });

  config
    .command('set <key> <value>')
    .description('Set one value (JSON; plain text is taken as a string); refused when the result is invalid')
    .action((key: string, text: string, _options, command: Command) => {
      change(command, key, parseCliValue(text));
    });

  config
    .command('unset <key>')
    .description('Remove one key, so its default applies')
    .action((key: string, _options, command: Command) => {
      change(command, key, undefined);
    });

  return config;
}

function load(command: Command) {
  return loadConfigFor(homeOf(command), command.optsWithGlobals<{ home?: string }>().home);
}

function keyPath(key: string): string[] {
  const segments = parseKeyPath(key);
  if (!segments) throw new ConfigError('BAD_KEY', `"${key}" is not a config key path`, 'Write keys like platforms.webhook.extra.port or mcp_servers["my.server"].url.');
  return segments;
}

function change(command: Command, key: string, value: unknown): void {
  const home = homeOf(command);
  const { file } = load(command);
  const segments = keyPath(key);
  if (value === undefined && getAt(file, segments) === undefined) throw new ConfigError('KEY_NOT_SET', `${key} is not set in config.json`, 'Nothing to remove.');
  const next = setAt(file, segments, value);
  const issues = validateConfig(next);
  if (issues.length > 0) throw invalidConfigError(issues, home.configFile, true);
  writeConfigFile(home.configFile, next as Record<string, unknown>);
  recordChange(home, value === undefined ? `unset ${formatKeyPath(segments)}` : `set ${formatKeyPath(segments)}`);
  say(value === undefined ? `Removed ${formatKeyPath(segments)}.` : `Set ${formatKeyPath(segments)} = ${JSON.stringify(maskSecrets({ [segments.at(-1)!]: value })[segments.at(-1)!])}`);
  const gateway = runningGateway(home.lockFile);
  const changed = changedKeys(file, next);
  if (!gateway || changed.length === 0) return;
  // The running gateway serves routes when its platform was enabled at start (and still is in the file it read).
  const webhooksRunning = file.platforms?.webhook?.enabled === true;
  const waiting = changed.filter((entry) => !appliedLive(entry, webhooksRunning));
  say(waiting.length === 0
    ? `The running gateway (pid ${gateway.pid}) applies this within a few seconds.`
    : `A gateway is running (pid ${gateway.pid}); restart it to apply ${waiting.join(', ')}.`);
}

function recordChange(home: HomeLayout, detail: string): void {
  const store = openStore(home.stateDb);
  try {
    createAuditLog(store).record('cli', 'config.changed', detail);
  } finally {
    store.close();
  }
}
