import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileTokenStore, type TokenFile } from '../../source/mcp/token-store.js';
import { tempHome } from '../helpers/temp-home.js';

const tokens = (access: string): TokenFile => ({ tokens: { access_token: access, token_type: 'Bearer', refresh_token: `r-${access}` } });

describe('file token store', () => {
  it('exclusive sections take turns: the second starts after the first saved, and reads what it saved', async () => {
    const dir = path.join(tempHome().root, 'mcp-tokens');
    const store = createFileTokenStore(dir, 'srv');
    await store.updateTokenFile(() => tokens('old'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = store.exclusive(async (current, save) => {
      order.push(`first saw ${current.tokens?.access_token}`);
      await held;
      await save(tokens('new'));
      order.push('first saved');
    });
    const second = store.exclusive(async (current) => {
      order.push(`second saw ${current.tokens?.access_token}`);
    });
    await until(() => order.length > 0);
    // Give the second every chance to start early: it must not while the first holds its turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first saw old']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first saw old', 'first saved', 'second saw new']);
    expect(fs.statSync(path.join(dir, 'srv.json')).mode & 0o777).toBe(0o600);
  });

  it('a failed section does not block the next one', async () => {
    const store = createFileTokenStore(path.join(tempHome().root, 'mcp-tokens'), 'srv');
    await expect(store.exclusive(async () => { throw new Error('token endpoint down'); })).rejects.toThrow('token endpoint down');
    await expect(store.exclusive(async (current) => current)).resolves.toEqual({});
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}
