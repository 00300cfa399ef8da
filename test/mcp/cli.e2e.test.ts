import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { FIXTURE_SERVER, freePort, NODE } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const running: RunningCli[] = [];
afterEach(() => stopClis(running));

describe('switchboard mcp', () => {
  it('add, list --json, test, remove; never overwrites a name', async () => {
    const home = tempHome();
    const closed = `http://127.0.0.1:${await freePort()}/mcp`;
    const sb = (...args: string[]) => runCli(['--home', home.root, ...args]);
    expect((await sb('mcp', 'add', 'fx', '--command', NODE, '--arg', FIXTURE_SERVER, '--arg', 'stdio', '--env', 'TOKEN=${FX_TOKEN}', '--trust', 'untrusted')).code).toBe(0);
    const again = await sb('mcp', 'add', 'fx', '--url', 'http://127.0.0.1:1/mcp');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('error: MCP server "fx" already exists');
    expect((await sb('mcp', 'add', 'both', '--url', 'http://x', '--command', 'y')).stderr).toContain('give exactly one of --command (stdio) or --url (HTTP)');
    expect((await sb('mcp', 'add', 'down', '--url', closed, '--header', 'Authorization=Bearer s3cret-value')).code).toBe(0);
    const written = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    expect(written.mcp_servers.fx).toEqual({ command: NODE, args: [FIXTURE_SERVER, 'stdio'], env: { TOKEN: '${FX_TOKEN}' }, trust: 'untrusted' });

    const listed = await sb('mcp', 'list', '--json');
    expect(listed.code).toBe(1); // one server failed
    const json = JSON.parse(listed.stdout) as { servers: Array<Record<string, unknown>> };
    expect(json.servers.map((s) => Object.keys(s))).toEqual([['name', 'status', 'era', 'transport', 'error', 'tools', 'skipped'], ['name', 'status', 'era', 'transport', 'error', 'tools', 'skipped']]);
    expect(json.servers[0]).toMatchObject({ name: 'fx', status: 'ready', era: 'legacy', transport: 'stdio', error: null });
    expect(json.servers[0]!.tools).toContainEqual({ name: 'mcp__fx__write_note', original: 'write-note', readOnly: false });
    expect(json.servers[1]).toMatchObject({ name: 'down', status: 'failed', era: null, transport: 'streamable-http', tools: [] });
    expect(String(json.servers[1]!.error)).toMatch(/^server down: connect failed: .*ECONNREFUSED/);
    expect(listed.stdout + listed.stderr).not.toContain('s3cret-value');

    const text = await sb('mcp', 'list');
    expect(text.stdout).toContain('fx  ready  stdio  era legacy');
    expect(text.stdout).toContain('  mcp__fx__echo  <- echo  read-only');

    const tested = await sb('mcp', 'test', 'fx');
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^server fx: ready in \d+ ms over stdio, legacy era \(2025-11-25\), 12 tools/);
    const down = await sb('mcp', 'test', 'down');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/server down: connect failed: .*\(status failed\)/);

    expect((await sb('mcp', 'remove', 'down')).code).toBe(0);
    expect(Object.keys(JSON.parse(fs.readFileSync(home.configFile, 'utf8')).mcp_servers)).toEqual(['fx']);
    const missing = await sb('mcp', 'remove', 'down');
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('No server "down" in mcp_servers')]);
  }, 60_000);

  it('list shows the problems of the mcp_servers entries, the same with and without a running gateway', async () => {
    const home = preparedHome((config) => {
      config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], protocol: 'weird', tools: { include: ['echo'] } }, hollow: {} };
    });
    const warnings = [
      'server fx: protocol "weird" is not one of auto, stateless, legacy; using auto',
      'server hollow: needs "command" (stdio) or "url" (HTTP); skipped',
    ];
    const sb = (...args: string[]) => runCli([...args, '--home', home.root]);
    const listBoth = async () => {
      const text = await sb('mcp', 'list');
      const json = await sb('mcp', 'list', '--json');
      expect(text.code).toBe(0);
      expect(text.stdout).toBe('fx  ready  stdio  era legacy\n  mcp__fx__echo  <- echo  read-only\n');
      return { stderr: text.stderr.split('\n').filter((line) => line.startsWith('warning: ')), json: JSON.parse(json.stdout).warnings as string[], jsonStderr: json.stderr };
    };
    const alone = await listBoth();
    expect(alone.stderr).toEqual(warnings.map((warning) => `warning: ${warning}`));
    expect(alone.json).toEqual(warnings);
    expect(alone.jsonStderr).not.toContain('warning:'); // --json carries them

    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('MCP server fx ready', 30_000);
    // A file this process would refuse (unknown key), the running gateway keeps its config: the answer is the gateway's.
    const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    fs.writeFileSync(home.configFile, JSON.stringify({ ...config, surplus: true }));
    await gateway.waitFor('surplus', 10_000);
    expect(await listBoth()).toEqual(alone);
  }, 90_000);

  it('list names a tool skipped because another server has its name, with and without a running gateway', async () => {
    // `docs-v1` and `docs_v1` both become `mcp__docs_v1__...`: `docs_v1`, second in config.json, loses `echo` (whichever connects first).
    const fixture = { command: NODE, args: [FIXTURE_SERVER, 'stdio'], tools: { include: ['echo'] } };
    const home = preparedHome((config) => {
      config.mcp_servers = { 'docs-v1': fixture, docs_v1: fixture };
    });
    const sb = (...args: string[]) => runCli([...args, '--home', home.root]);
    const [owner, loser] = ['docs-v1', 'docs_v1'];
    const listBoth = async () => {
      const text = await sb('mcp', 'list');
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`${owner}  ready  stdio  era legacy\n  mcp__docs_v1__echo`);
      expect(text.stdout).toContain(`${loser}  ready  stdio  era legacy\n  ! tool "mcp__docs_v1__echo" (echo) skipped: "${owner}" already provides it\n`);
      expect(text.stdout).not.toContain('no tools registered');
      const json = JSON.parse((await sb('mcp', 'list', '--json')).stdout) as { servers: Array<{ name: string; tools: unknown[]; skipped: unknown[] }> };
      const views = Object.fromEntries(json.servers.map((server) => [server.name, server]));
      expect(views[owner]!.skipped).toEqual([]);
      expect(views[loser]).toMatchObject({ tools: [], skipped: [{ name: 'mcp__docs_v1__echo', original: 'echo', owner }] });
    };
    await listBoth();

    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('registered by', 30_000);
    await listBoth();
    expect(gateway.output()).toMatch(/tool mcp__docs_v1__echo is (already registered by docs-v1|registered by docs-v1, which comes first in config.json); skipped/);
  }, 90_000);
});
