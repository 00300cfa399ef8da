import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatKeyPath } from '../../source/config/key-path.js';
import { validateConfig } from '../../source/config/validate.js';
import { tokenFileStem } from '../../source/mcp/token-store.js';
import { createLocalOperations } from '../../source/operations/local.js';
import { preparedHome } from '../helpers/host.js';

describe('MCP server names never escape the home or touch object internals', () => {
  it('refuses path segments and JavaScript internals as server names, naming the key', () => {
    for (const name of ['..', '.', '__proto__', 'constructor', 'prototype']) {
      const config = JSON.parse(`{"mcp_servers": {${JSON.stringify(name)}: {"command": "node"}}}`) as unknown;
      const issues = validateConfig(config);
      expect(issues, name).toContainEqual({ path: formatKeyPath(['mcp_servers', name]), reason: expect.stringContaining(`"${name}" cannot name a server`) });
    }
  });

  it('mcp add __proto__ is refused for what it is (not "already exists"), and nothing is written', async () => {
    const home = preparedHome();
    const before = fs.readFileSync(home.configFile, 'utf8');
    const local = createLocalOperations(home, { version: 'test' });
    const refusal = (name: string) => local.operations.mcp.add({ name, entry: { command: 'node' } }).then(() => undefined, (caught: unknown) => caught as { message: string; details: string[] });
    try {
      const proto = await refusal('__proto__');
      expect(proto?.message).not.toContain('already exists');
      expect(proto?.details).toContainEqual(expect.stringContaining('"__proto__" cannot name a server: it is reserved by JavaScript objects'));
      expect((await refusal('..'))?.details).toContainEqual(expect.stringContaining('".." cannot name a server: it is a path segment'));
    } finally {
      await local.close();
    }
    expect(fs.readFileSync(home.configFile, 'utf8')).toBe(before);
  });

  it('token file names stay in the tokens folder and are one per name, whatever the name', () => {
    const dir = '/home/op/.switchboard/mcp-tokens';
    const names = ['..', '.', '.hidden', 'a/b', 'a_b', 'a b', 'x\\y', 'plain.name', 'ünï'];
    const stems = names.map(tokenFileStem);
    for (const stem of stems) expect(path.dirname(path.join(dir, `${stem}.json`))).toBe(dir);
    expect(new Set(stems).size).toBe(names.length);
    expect(tokenFileStem('plain.name')).toBe('plain.name'); // existing token files keep their names
  });
});
