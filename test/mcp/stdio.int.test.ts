import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/temp-home.js';
import { call, EVERYTHING, FILESYSTEM, FIXTURE_SERVER, startedManager, NODE, scriptedApprovals, servers, toolContext, until } from '../helpers/mcp.js';


describe('stdio servers', () => {
  it('connects server-everything over stdio, registers sanitized names and utility tools, calls echo', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ 'every-thing': { command: NODE, args: [EVERYTHING, 'stdio'] } }), { wait: true });
    const [view] = manager.list();
    expect(view).toMatchObject({ name: 'every-thing', status: 'ready', era: 'legacy', transport: 'stdio' });
    const names = registry.list().map((t) => t.name);
    expect(names).toContain('mcp__every_thing__echo');
    expect(names).toContain('mcp__every_thing__get_tiny_image');
    for (const utility of ['list_resources', 'read_resource', 'list_prompts', 'get_prompt']) expect(names).toContain(`mcp__every_thing__${utility}`);
    expect(view!.tools.find((t) => t.name === 'mcp__every_thing__get_tiny_image')?.original).toBe('get-tiny-image');
    const out = await call(registry, 'mcp__every_thing__echo', { message: 'hi there' });
    expect(out.text).toContain('hi there');
    const image = await call(registry, 'mcp__every_thing__get_tiny_image');
    const saved = /saved to (\S+\.png)\]/.exec(image.text)?.[1];
    expect(saved && fs.existsSync(saved) && saved.startsWith(path.join(home.root, 'mcp-media'))).toBe(true);
    const prompts = await call(registry, 'mcp__every_thing__list_prompts');
    expect(prompts.text).toContain('simple-prompt');
  });

  it('filesystem server: tools only, no utility tools; include and exclude filters', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    fs.writeFileSync(path.join(home.root, 'hello.txt'), 'hello from the file');
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({
      fs: { command: NODE, args: [FILESYSTEM, home.root] },
      only: { command: NODE, args: [FILESYSTEM, home.root], tools: { include: ['read_*', 'list_directory'], exclude: ['read_text_file'] } },
      none: { command: NODE, args: [FILESYSTEM, home.root], tools: { include: [] } },
      most: { command: NODE, args: [FILESYSTEM, home.root], tools: { exclude: 'write_file' } },
    }), { wait: true });
    const names = registry.list().map((t) => t.name);
    expect(names.filter((n) => n.startsWith('mcp__fs__')).length).toBeGreaterThan(5);
    expect(names.some((n) => /list_resources|list_prompts/.test(n))).toBe(false);
    const only = names.filter((n) => n.startsWith('mcp__only__')).sort();
    expect(only).toContain('mcp__only__read_text_file');
    expect(only).toContain('mcp__only__list_directory');
    expect(only.every((n) => n.startsWith('mcp__only__read_') || n === 'mcp__only__list_directory')).toBe(true);
    expect(names.some((n) => n.startsWith('mcp__none__'))).toBe(false);
    expect(names).not.toContain('mcp__most__write_file');
    expect(names).toContain('mcp__most__read_text_file');
    const read = await call(registry, 'mcp__fs__read_text_file', { path: path.join(home.root, 'hello.txt') });
    expect(read.text).toContain('hello from the file');
  });

  it('fixture: results (structured, isError, 64 KiB cap), per-call timeout naming the value, crash then reconnect', async () => {
    const home = tempHome();
    const states: string[] = [];
    const { manager, registry } = startedManager(home.root, { retry: true, onStatusChanged: (s) => states.push(s.status) });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], timeout: 1 } }), { wait: true });
    const write = await call(registry, 'mcp__fx__write_note', { note: 'n1' });
    expect(write).toMatchObject({ text: 'wrote n1', structured: { written: 'n1' } });
    expect(await call(registry, 'mcp__fx__fail')).toMatchObject({ text: 'it broke', isError: true });
    const big = await call(registry, 'mcp__fx__big');
    expect(Buffer.byteLength(big.text)).toBeLessThan(64 * 1024 + 200);
    expect(big.text).toMatch(/\[truncated: the result was 204800 bytes/);
    await expect(call(registry, 'mcp__fx__hang')).rejects.toThrow('server fx: tool hang did not answer within 1 s (mcp_servers.fx.timeout = 1)');
    // A run cancelled during the call: the call says it was cancelled, not that the server was slow.
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(new Error('the operator cancelled run test-run')), 100);
    await expect(call(registry, 'mcp__fx__hang', {}, toolContext(undefined, cancel.signal))).rejects.toThrow('server fx: tool hang was cancelled: the operator cancelled run test-run');
    await expect(call(registry, 'mcp__fx__crash')).rejects.toThrow(/server fx: tool crash failed/);
    await until(() => states.includes('degraded'), 'degraded');
    await until(() => manager.list()[0]!.status === 'ready' && states.lastIndexOf('ready') > states.indexOf('degraded'), 'reconnected');
    expect((await call(registry, 'mcp__fx__echo', { text: 'again' })).text).toBe('echo: again');
    const log = fs.readFileSync(path.join(home.root, 'logs', 'mcp', 'fx.log'), 'utf8');
    expect(log).toContain('crashing now');
  });

  it('tools/list_changed refreshes the registry', async () => {
    const home = tempHome();
    const changes: string[][] = [];
    const { manager, registry } = startedManager(home.root, { onToolsChanged: (c) => changes.push(c.tools) });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } }), { wait: true });
    expect(registry.get('mcp__fx__added')).toBeUndefined();
    await call(registry, 'mcp__fx__grow');
    await until(() => registry.get('mcp__fx__added'), 'the added tool');
    expect((await call(registry, 'mcp__fx__added')).text).toBe('added!');
    expect(changes.length).toBeGreaterThanOrEqual(2);
  });

  it('untrusted: approval before any transport work; denial returns the refusal; read-only tools skip approval', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], trust: 'untrusted' } }), { wait: true });
    const deny = scriptedApprovals(() => ({ status: 'denied', reason: 'that server is on probation', by: 'console' }));
    const denied = await call(registry, 'mcp__fx__crash', {}, toolContext(deny.requester));
    expect(denied).toEqual({ text: 'denied by the operator: that server is on probation; the tool call was not made; do not retry without being asked', isError: true });
    expect(deny.asked[0]).toMatchObject({ tool: 'mcp__fx__crash', server: 'fx' });
    expect(manager.list()[0]!.status).toBe('ready'); // the crash tool never ran
    const allow = scriptedApprovals(() => ({ status: 'approved' }));
    expect((await call(registry, 'mcp__fx__write_note', { note: 'ok' }, toolContext(allow.requester))).text).toBe('wrote ok');
    expect((await call(registry, 'mcp__fx__echo', { text: 'ro' }, toolContext(deny.requester))).text).toBe('echo: ro');
    expect(deny.asked).toHaveLength(1);
  });

  it('enabled: false connects nothing and registers nothing', async () => {
    const home = tempHome();
    const { manager, registry } = startedManager(home.root);
    await manager.start(servers({ off: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], enabled: false } }), { wait: true });
    expect(manager.list()).toEqual([expect.objectContaining({ name: 'off', status: 'disabled', tools: [] })]);
    expect(registry.list()).toEqual([]);
  });

  it('a server that dies at start fails with its stderr in the reason; a missing command says so', async () => {
    const home = tempHome();
    const { manager } = startedManager(home.root);
    await manager.start(servers({
      dies: { command: NODE, args: ['-e', "console.error('boom: missing API key'); process.exit(4)"] },
      nocmd: { command: '/nonexistent/server' },
    }), { wait: true });
    const views = Object.fromEntries(manager.list().map((v) => [v.name, v]));
    expect(views.dies).toMatchObject({ status: 'failed', reason: 'server dies: connect failed: Connection closed (stderr: boom: missing API key)' });
    expect(views.nocmd!.reason).toBe('server nocmd: connect failed: cannot start /nonexistent/server: spawn /nonexistent/server ENOENT');
  });
});
