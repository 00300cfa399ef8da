import { Command } from './commander.js';
import { parseCliValue } from '../config/edit.js';
import { maskSecrets } from '../config/mask.js';
import { OperatorError } from '../operations/errors.js';
import type { ConfigChangeView } from '../operations/config.js';
import type { OperatorSession } from '../operations/connect.js';
import { homeOf } from './context.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/** `switchboard config`: every change is checked as the gateway checks it at start (checkConfig) and applied live by a running gateway. */
export function configCommand(): Command {
  const config = new Command('config').description('Show, check and change config.json');

  config.command('path').description('Print the path of config.json').action((_options, command: Command) => {
    print(homeOf(command).configFile);
  });

  config.command('show').description('Print config.json with secrets masked').action((_options, command: Command) => withOperations(command, async ({ operations }) => {
    print(JSON.stringify(await operations.config.show({}), undefined, 2));
  }));

  config.command('validate').description('Check config.json as the gateway does at start; lists every problem').action((_options, command: Command) => withOperations(command, async ({ operations }) => {
    const { file, issues } = await operations.config.validate({});
    if (issues.length > 0) {
      throw new OperatorError('invalid', `${file} has ${issues.length === 1 ? '1 problem' : `${issues.length} problems`}`,
        'Fix the keys above (the schema is config.schema.json), then run: switchboard config validate', issues.map((issue) => `${issue.path}: ${issue.reason}`));
    }
    say(`${file} is valid.`);
  }));

  config
    .command('get <key>')
    .description('Print one value, e.g. platforms.webhook.extra.port (secrets are shown: you asked for them)')
    .action((key: string, _options, command: Command) => withOperations(command, async ({ operations }) => {
      const { value } = await operations.config.get({ key });
      print(typeof value === 'string' ? value : JSON.stringify(value, undefined, 2));
    }));

  config
    .command('set <key> <value>')
    .description('Set one value (JSON; plain text is taken as a string); refused when the result is invalid')
    .action((key: string, text: string, _options, command: Command) => withOperations(command, async (session) => {
      const value = parseCliValue(text);
      const changed = await session.operations.config.set({ key, value, by: 'cli' });
      const last = changed.key.split('.').at(-1) ?? changed.key;
      say(`Set ${changed.key} = ${JSON.stringify((maskSecrets({ [last]: value }) as Record<string, unknown>)[last])}`);
      sayApplied(session, changed);
    }));

  config
    .command('unset <key>')
    .description('Remove one key, so its default applies')
    .action((key: string, _options, command: Command) => withOperations(command, async (session) => {
      const changed = await session.operations.config.set({ key, by: 'cli' });
      say(`Removed ${changed.key}.`);
      sayApplied(session, changed);
    }));

  return config;
}

/** Whether the change is in effect now, or what waits for a restart. */
export function sayApplied(session: OperatorSession, changed: ConfigChangeView): void {
  if (session.where !== 'gateway') return say('No gateway is running: the change applies when one starts.');
  if (changed.changed.length === 0) return say('Nothing changed.');
  say(changed.restartNeeded.length === 0
    ? `The running gateway (pid ${session.hello.pid}) applied it.`
    : `The running gateway (pid ${session.hello.pid}) needs a restart to apply ${changed.restartNeeded.join(', ')}.`);
}
