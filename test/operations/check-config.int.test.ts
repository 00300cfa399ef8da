import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../source/config/types.js';
import { loadCheckedConfig } from '../../source/gateway/check-config.js';
import { attachToGateway } from '../../source/operations/connect.js';
import type { OperatorError } from '../../source/operations/errors.js';
import type { Operations } from '../../source/operations/index.js';
import { createLocalOperations } from '../../source/operations/local.js';
import { preparedHome, startHost } from '../helpers/host.js';

/**
 * One corpus of bad configs, fed to every writer and checker: gateway start, `config validate`,
 * `config set` (the CLI and the console's forms), `mcp add` (CLI, `/install`), and the reload after
 * `E` or an edit on disk. They must all give the same verdict: the same key paths.
 */
interface BadConfig {
  name: string;
  /** The one change, as a key path and value (what `config set` is given). */
  key: string;
  value: unknown;
  apply: (config: ConfigFile) => void;
  paths: string[];
  /** For mcp_servers entries: the name and entry `mcp add` is given. */
  mcp?: { name: string; entry: Record<string, unknown> };
}

const corpus: BadConfig[] = [
  {
    name: 'a route delivering to a disabled platform', key: 'platforms.webhook.extra.routes.demo.deliver', value: 'slack',
    apply: (c) => { c.platforms!.webhook!.extra!.routes!.demo!.deliver = 'slack'; }, paths: ['platforms.webhook.extra.routes.demo.deliver'],
  },
  {
    name: 'a route with an empty prompt template', key: 'platforms.webhook.extra.routes.demo.prompt', value: '  ',
    apply: (c) => { c.platforms!.webhook!.extra!.routes!.demo!.prompt = '  '; }, paths: ['platforms.webhook.extra.routes.demo.prompt'],
  },
  {
    name: 'a model provider without its key', key: 'model', value: { provider: 'openai', name: 'gpt-4.1-mini' },
    apply: (c) => { c.model = { provider: 'openai', name: 'gpt-4.1-mini' }; }, paths: ['model'],
  },
  {
    name: 'a port that is not a number', key: 'platforms.webhook.extra.port', value: 'eighty',
    apply: (c) => { (c.platforms!.webhook!.extra as Record<string, unknown>).port = 'eighty'; }, paths: ['platforms.webhook.extra.port'],
  },
  {
    name: 'an MCP server entry with a misspelt key', key: 'mcp_servers.gh', value: { url: 'https://example.invalid/mcp', timout: 5 },
    apply: (c) => { c.mcp_servers = { gh: { url: 'https://example.invalid/mcp', timout: 5 } as never }; }, paths: ['mcp_servers.gh.timout'],
    mcp: { name: 'gh', entry: { url: 'https://example.invalid/mcp', timout: 5 } },
  },
  {
    name: 'an MCP server whose url is not http(s)', key: 'mcp_servers.files', value: { url: 'ftp://example.invalid/mcp' },
    apply: (c) => { c.mcp_servers = { files: { url: 'ftp://example.invalid/mcp' } as never }; }, paths: ['mcp_servers.files.url'],
    mcp: { name: 'files', entry: { url: 'ftp://example.invalid/mcp' } },
  },
  {
    name: 'a route secret that names an unset variable', key: 'platforms.webhook.extra.routes.demo.secret', value: '${NOT_SET_ANYWHERE_42}',
    apply: (c) => { c.platforms!.webhook!.extra!.routes!.demo!.secret = '${NOT_SET_ANYWHERE_42}'; }, paths: ['platforms.webhook.extra.routes'],
  },
  {
    name: 'a control listener on a public address without a token', key: 'control', value: { host: '0.0.0.0', port: 8645 },
    apply: (c) => { (c as Record<string, unknown>).control = { host: '0.0.0.0', port: 8645 }; }, paths: ['control'],
  },
];

const pathsOf = (error: unknown) => ((error as OperatorError).details ?? []).map((detail) => detail.slice(0, detail.indexOf(': '))).sort();
const refusal = async (work: Promise<unknown>) => {
  const error = await work.then(() => undefined, (caught: unknown) => caught);
  expect(error, 'the change was accepted').toBeDefined();
  return pathsOf(error);
};

describe('checkConfig: one verdict for every writer', () => {
  for (const bad of corpus) {
    it(`${bad.name}: refused with ${bad.paths.join(', ')} by start, validate, set, mcp add and reload`, async () => {
      const home = preparedHome();
      const host = await startHost(home);
      const remote = await attachToGateway({ socketPath: home.controlSocket });
      const local = createLocalOperations(home, { version: 'test' });
      try {
        const before = fs.readFileSync(home.configFile, 'utf8');
        const writers: Array<[string, Operations]> = [['through the running gateway', remote.operations], ['in-process, no gateway', local.operations]];
        for (const [where, operations] of writers) {
          expect(await refusal(operations.config.set({ key: bad.key, value: bad.value })), `config set ${where}`).toEqual(bad.paths);
          if (bad.mcp) expect(await refusal(operations.mcp.add({ name: bad.mcp.name, entry: bad.mcp.entry as never })), `mcp add ${where}`).toEqual(bad.paths);
        }
        expect(fs.readFileSync(home.configFile, 'utf8'), 'nothing was written').toBe(before);

        // The same change written by hand: validate, the next start and the running gateway's reload agree.
        const config = JSON.parse(before) as ConfigFile;
        bad.apply(config);
        fs.writeFileSync(home.configFile, JSON.stringify(config));
        const validated = await remote.operations.config.validate({});
        expect(validated.issues.map((issue) => issue.path).sort(), 'config validate').toEqual(bad.paths);
        expect((await local.operations.config.validate({})).issues).toEqual(validated.issues);
        expect(pathsOf(catching(() => loadCheckedConfig(home, {}))), 'gateway start').toEqual(bad.paths);
        expect(await refusal(remote.operations.config.reload({})), 'reload after E').toEqual(bad.paths);
        expect(host.gateway.config.current().values.platforms?.webhook?.extra?.routes?.demo?.deliver, 'the config in effect stays').toBe('log');
      } finally {
        await remote.close();
        await local.close();
        await host.stop();
      }
    });
  }
});

function catching(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}
