import { afterEach, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../source/infra/config-file.js';
import type { McpServerState } from '../../source/mcp/connection.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { makeGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER, NODE, until } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

describe('MCP in the gateway', () => {
  it('connects in the background, registers tools in the agent registry, runs them from an agent run with trust applied', async () => {
    const home = tempHome();
    const model: ScriptedModel = await startScriptedModel([
      { toolCalls: [{ name: 'mcp__trusted__write_note', args: { note: 'from the model' } }, { name: 'mcp__wary__write_note', args: { note: 'blocked' } }] },
      { text: 'done' },
    ]);
    cleanups.push(() => model.close());
    const { gateway, store } = makeGateway(home, (c) => {
      c.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' };
      c.mcp_servers = {
        trusted: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] },
        wary: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], trust: 'untrusted' },
        off: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], enabled: false },
      };
    });
    cleanups.push(() => store.close());
    const statuses: McpServerState[] = [];
    gateway.events.on('mcp.statusChanged', (s) => statuses.push(s));
    await gateway.start();
    cleanups.push(() => gateway.stop());
    await until(() => gateway.mcp.list().filter((s) => s.status === 'ready').length === 2, 'both servers ready');
    expect(statuses.some((s) => s.name === 'trusted' && s.status === 'connecting')).toBe(true);
    expect(gateway.snapshot().mcp.servers.map((s) => [s.name, s.status])).toEqual([['trusted', 'ready'], ['wary', 'ready'], ['off', 'disabled']]);
    expect(gateway.tools.get('mcp__trusted__echo')?.source).toBe('trusted');

    const result = await gateway.runAgent({ prompt: 'write notes', origin: 'test' });
    expect(result.status).toBe('ok');
    const calls = Object.fromEntries(result.toolCalls.map((c) => [c.name, c]));
    expect(calls.mcp__trusted__write_note).toMatchObject({ result: 'wrote from the model', isError: false });
    expect(calls.mcp__wary__write_note).toMatchObject({ isError: true });
    expect(calls.mcp__wary__write_note!.result).toContain('the tool call was not made; do not retry without being asked');
  });

  it('mcp.reload() reconnects changed entries, drops removed ones, keeps the rest', async () => {
    const home = tempHome();
    const entry = (extra: object = {}) => ({ command: NODE, args: [FIXTURE_SERVER, 'stdio'], ...extra });
    const { gateway, store, config } = makeGateway(home, (c) => {
      c.mcp_servers = { keep: entry(), change: entry(), drop: entry() };
    });
    cleanups.push(() => store.close());
    writeConfigFile(home.configFile, { ...(config.values as Record<string, unknown>), mcp_servers: { keep: entry(), change: entry(), drop: entry() } });
    const toolEvents: Array<{ server: string; tools: string[] }> = [];
    gateway.events.on('mcp.toolsChanged', (e) => toolEvents.push(e));
    await gateway.start();
    cleanups.push(() => gateway.stop());
    await until(() => gateway.mcp.list().every((s) => s.status === 'ready'), 'all ready');
    const keptSince = gateway.mcp.list().find((s) => s.name === 'keep')!.updatedAtMs;

    writeConfigFile(home.configFile, { ...(config.values as Record<string, unknown>), mcp_servers: { keep: entry(), change: entry({ tools: { include: ['echo'] } }), added: entry() } });
    const result = await gateway.mcp.reload();
    expect(result).toMatchObject({ added: ['added'], removed: ['drop'], changed: ['change'], unchanged: ['keep'] });
    await until(() => gateway.mcp.list().length === 3 && gateway.mcp.list().every((s) => s.status === 'ready'), 'ready after reload');
    expect(gateway.tools.get('mcp__drop__echo')).toBeUndefined();
    expect(gateway.tools.list().filter((t) => t.source === 'change').map((t) => t.name)).toEqual(['mcp__change__echo']);
    expect(gateway.tools.get('mcp__added__echo')).toBeDefined();
    expect(gateway.mcp.list().find((s) => s.name === 'keep')!.updatedAtMs).toBe(keptSince);
    expect(toolEvents).toContainEqual({ server: 'drop', tools: [] });

    const before = Number((await gateway.tools.get('mcp__keep__pid')!.execute({}, { runId: 'r', origin: 'test', signal: new AbortController().signal, requestApproval: async () => ({ status: 'denied' }) }) as { text: string }).text);
    expect(await gateway.mcp.reconnect('keep')).toBe(true);
    expect(await gateway.mcp.reconnect('nope')).toBe(false);
    await until(() => gateway.mcp.list().find((s) => s.name === 'keep')?.status === 'ready', 'keep reconnected');
    const after = Number((await gateway.tools.get('mcp__keep__pid')!.execute({}, { runId: 'r', origin: 'test', signal: new AbortController().signal, requestApproval: async () => ({ status: 'denied' }) }) as { text: string }).text);
    expect(after).not.toBe(before);
  });
});

describe('config.json watch', () => {
  it('a server added or removed on disk (mcp add/remove in another process) is connected or dropped within a few seconds', async () => {
    const home = tempHome();
    const { gateway, store, config } = makeGateway(home);
    cleanups.push(() => store.close());
    const base = config.values as Record<string, unknown>;
    writeConfigFile(home.configFile, { ...base, mcp_servers: {} });
    await gateway.start();
    cleanups.push(() => gateway.stop());
    writeConfigFile(home.configFile, { ...base, mcp_servers: { late: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } } });
    await until(() => gateway.tools.get('mcp__late__echo'), 'the new server registered');
    writeConfigFile(home.configFile, { ...base, mcp_servers: {} });
    await until(() => !gateway.tools.get('mcp__late__echo') && gateway.mcp.list().length === 0, 'the server dropped');
  });
});
