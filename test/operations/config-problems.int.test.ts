import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HomeLayout } from '../../source/config/home.js';
import { attachToGateway } from '../../source/operations/connect.js';
import type { Operations } from '../../source/operations/index.js';
import { createLocalOperations } from '../../source/operations/local.js';
import { preparedHome, startHost } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

/** What an operation was refused with: the message and the listed problems. */
async function refusal(work: Promise<unknown>): Promise<{ message: string; details: string[] }> {
  const error = await work.then(() => undefined, (caught: unknown) => caught as { message: string; details?: string[] });
  expect(error, 'the operation succeeded').toBeDefined();
  return { message: error!.message, details: error!.details ?? [] };
}

/** A running gateway on a home whose config.json was valid at start, and both ways to reach its operations. */
async function writers(home: HomeLayout): Promise<{ writers: Array<[string, Operations]>; local: Operations; remote: Operations; close(): Promise<void> }> {
  const host = await startHost(home);
  const remote = await attachToGateway({ socketPath: home.controlSocket });
  const local = createLocalOperations(home, { version: 'test' });
  return {
    writers: [['through the running gateway', remote.operations], ['in-process, no gateway', local.operations]],
    local: local.operations,
    remote: remote.operations,
    async close() {
      await remote.close();
      await local.close();
      await host.stop();
    },
  };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('config set on a config.json that is already invalid', () => {
  it('says the file is, and blames the key set only for the problems it brings', async () => {
    const home = preparedHome();
    const { writers: both, local, remote, close } = await writers(home);
    try {
      fs.writeFileSync(home.configFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(home.configFile, 'utf8')), timezon: 'UTC' }));
      const before = fs.readFileSync(home.configFile, 'utf8');
      for (const [where, operations] of both) {
        expect(await refusal(operations.config.set({ key: 'agent.max_steps', value: 5 })), where).toEqual({
          message: 'Not written: config.json is already invalid (fix it first, or run switchboard config validate)',
          details: ['timezon: unknown key; did you mean "timezone"?'],
        });
        expect(await refusal(operations.config.set({ key: 'agent.max_steps', value: 'five' })), where).toEqual({
          message: 'Not written: agent.max_steps would make config.json invalid (and it is already invalid: switchboard config validate lists every problem)',
          details: ['agent.max_steps: must be an integer (got string)'],
        });
      }
      expect(fs.readFileSync(home.configFile, 'utf8'), 'nothing was written').toBe(before);

      // `config unset` of the stray key fixes the file (in-process too: it is not refused for being invalid).
      await local.config.set({ key: 'timezon' });
      expect(await refusal(remote.config.set({ key: 'agent.max_steps', value: 'five' }))).toEqual({
        message: 'Not written: agent.max_steps would make config.json invalid',
        details: ['agent.max_steps: must be an integer (got string)'],
      });
    } finally {
      await close();
    }
  });
});

describe('a config.json that cannot be read', () => {
  it('is named once, with no "(root)", by the CLI\'s reads, config set, reload and the gateway\'s file watch', async () => {
    const home = preparedHome();
    const { writers: both, remote, close } = await writers(home);
    try {
      fs.writeFileSync(home.configFile, '{ "timezone": ');
      const notJson = `${home.configFile} is not valid JSON: `;
      for (const [where, operations] of both) {
        const shown = await refusal(operations.config.show({}));
        expect(shown.message, where).toMatch(new RegExp(`^${notJson}`));
        expect(count(shown.message, home.configFile), where).toBe(1);
        const set = await refusal(operations.config.set({ key: 'agent.max_steps', value: 5 }));
        expect(set.message, where).toContain(notJson);
        expect([count(set.message, home.configFile), set.details], where).toEqual([1, []]);
      }
      const reload = await refusal(remote.config.reload({}));
      expect(reload.message).toMatch(new RegExp(`^${notJson}.*; the previous config stays in effect$`));
      expect([count(reload.message, home.configFile), reload.details]).toEqual([1, []]);

      const line = await waitUntil(() => fs.readFileSync(home.gatewayLog, 'utf8').split('\n').find((text) => text.includes('changed on disk but was not applied')), 10_000, 'the watch\'s warning');
      expect(line).toContain(`was not applied: ${notJson}`);
      expect(line).toMatch(/; the previous config stays in effect("|$)/);
      expect(count(line, home.configFile)).toBe(1);
      expect(line).not.toContain('(root)');
    } finally {
      await close();
    }
  });
});
