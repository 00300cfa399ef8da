import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../source/mcp/catalog.js';
import { resolveMcpServers } from '../../source/mcp/server-config.js';
import type { McpServerConfig } from '../../source/config/types.js';

const unused = {
  callTool: () => Promise.reject(new Error('not called in this test')),
  use: () => Promise.reject(new Error('not called in this test')),
};
function catalog(entry: McpServerConfig, tools: string[], caps = { resources: true, prompts: true }) {
  const [server] = resolveMcpServers({ mcp_servers: { 'my-api': { command: 'x', ...entry } } }).servers;
  return buildCatalog({ tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })), ...caps }, { server: server!, connection: unused, mediaDir: '/tmp' });
}

describe('buildCatalog', () => {
  it('skips both tools of a sanitized-name collision, with a warning naming them', () => {
    const c = catalog({}, ['list-items.v2', 'list_items_v2', 'ok']);
    expect(c.entries.map((e) => e.name)).toEqual(['mcp__my_api__ok', 'mcp__my_api__list_resources', 'mcp__my_api__read_resource', 'mcp__my_api__list_prompts', 'mcp__my_api__get_prompt']);
    expect(c.warnings).toEqual(['server my-api: tools "list-items.v2" and "list_items_v2" all become mcp__my_api__list_items_v2; none of them is registered (rename them on the server or exclude all but one)']);
  });

  it('utility tools need both the flag and the advertised capability; nothing left means no toolset', () => {
    expect(catalog({ tools: { resources: false } }, []).entries.map((e) => e.original)).toEqual(['list_prompts', 'get_prompt']);
    expect(catalog({}, [], { resources: false, prompts: true }).entries.map((e) => e.original)).toEqual(['list_prompts', 'get_prompt']);
    expect(catalog({ tools: { include: [] } }, ['a'], { resources: false, prompts: false }).definitions).toEqual([]);
  });

  it('supports_parallel_tool_calls marks tools parallel-safe; the source is the server', () => {
    const [tool] = catalog({ supports_parallel_tool_calls: true }, ['a'], { resources: false, prompts: false }).definitions;
    expect(tool).toMatchObject({ name: 'mcp__my_api__a', parallelSafe: true, source: 'my-api' });
    expect(catalog({}, ['a'], { resources: false, prompts: false }).definitions[0]!.parallelSafe).toBe(false);
  });
});
