import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/temp-home.js';
import { FIXTURE_SERVER, NODE, servers, startedManager, until } from '../helpers/mcp.js';

const fixture = { command: NODE, args: [FIXTURE_SERVER, 'stdio'], tools: { include: ['echo', 'pid'] } };

describe('tool name clashes', () => {
  it('a server keeps the tools it skipped and who owns each name; takes the names when their owner goes; recomputed on reconnect', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    registry.register({ name: 'mcp__solo__pid', description: 'taken', inputSchema: { type: 'object' }, source: 'builtin', execute: async () => 'x' });
    // `fx-a` and `fx_a` sanitize to the same prefix: the one first in config.json has both names, whichever connects first.
    await manager.start(servers({ 'fx-a': fixture, fx_a: fixture, solo: fixture }), { wait: true });
    const view = (name: string) => manager.list().find((v) => v.name === name)!;
    expect(view('solo').skipped).toEqual([{ name: 'mcp__solo__pid', original: 'pid', owner: 'builtin' }]);
    expect(view('solo').tools.map((t) => t.name)).toEqual(['mcp__solo__echo']);
    const [owner, loser] = ['fx-a', 'fx_a'];
    expect(view(owner).skipped).toEqual([]);
    expect(view(loser).tools).toEqual([]);
    expect(view(loser).skipped).toEqual([
      { name: 'mcp__fx_a__echo', original: 'echo', owner },
      { name: 'mcp__fx_a__pid', original: 'pid', owner },
    ]);

    // The owner removed, the loser takes both names at once (same connection, its last discovery).
    await manager.reload(servers({ [loser]: fixture, solo: fixture }));
    expect(view(loser).skipped).toEqual([]);
    expect(view(loser).tools.map((t) => t.name)).toEqual(['mcp__fx_a__echo', 'mcp__fx_a__pid']);
    expect(registry.get('mcp__fx_a__echo')?.source).toBe(loser);

    // A reconnect starts with nothing skipped and computes the list again from the new discovery.
    expect(await manager.reconnect('solo')).toBe(true);
    expect(view('solo').skipped).toEqual([]);
    await until(() => view('solo').status === 'ready' && view('solo').skipped.length === 1, 'solo rediscovered');
    expect(view('solo').skipped).toEqual([{ name: 'mcp__solo__pid', original: 'pid', owner: 'builtin' }]);
  }, 30_000);

  it('the server first in config.json has a clashing name even when it connects after the other, which then lists it as skipped', async () => {
    const home = tempHome();
    const { manager } = startedManager(home.root);
    await manager.start(servers({ fx_a: fixture }), { wait: true });
    const view = (name: string) => manager.list().find((v) => v.name === name)!;
    expect(view('fx_a').tools.map((t) => t.name)).toEqual(['mcp__fx_a__echo', 'mcp__fx_a__pid']);
    await manager.reload(servers({ 'fx-a': fixture, fx_a: fixture })); // added later, first in the file
    await until(() => view('fx-a')?.status === 'ready', 'fx-a connected');
    expect(view('fx-a').tools.map((t) => t.name)).toEqual(['mcp__fx_a__echo', 'mcp__fx_a__pid']);
    expect(view('fx-a').skipped).toEqual([]);
    expect(view('fx_a').tools).toEqual([]);
    expect(view('fx_a').skipped).toEqual([
      { name: 'mcp__fx_a__echo', original: 'echo', owner: 'fx-a' },
      { name: 'mcp__fx_a__pid', original: 'pid', owner: 'fx-a' },
    ]);
  }, 30_000);
});
