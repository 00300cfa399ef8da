import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { parseKeyPath } from '../../source/config/key-path.js';
import type { Operations } from '../../source/operations/index.js';
import { Form } from '../../source/ui/components/Form.js';
import type { EditForm } from '../../source/ui/forms/edit-form.js';
import { mcpServerForm } from '../../source/ui/forms/mcp-server-form.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { waitForFrame } from '../helpers/ink.js';

const views: Array<{ unmount(): void }> = [];
afterEach(() => { for (const view of views.splice(0)) view.unmount(); });

/** Operations whose config.get reads `config` (a key it does not hold fails, as the core's does). */
function configOps(config: Record<string, unknown>): Operations {
  const get = async ({ key }: { key: string }) => {
    let value: unknown = config;
    for (const segment of parseKeyPath(key) ?? []) value = (value as Record<string, unknown> | undefined)?.[segment];
    if (value === undefined) throw new Error(`${key} is not set`);
    return { key, value };
  };
  return { config: { get } } as unknown as Operations;
}

async function formOf(entry: Record<string, unknown>): Promise<EditForm> {
  const form = await mcpServerForm(configOps({ mcp_servers: { fx: entry } }), 'fx');
  if ('error' in form) throw new Error(form.error);
  return form;
}

const keysOf = (form: EditForm) => form.fields.map((field) => field.key);

describe('the MCP server form (e on pane 1)', () => {
  it('shows the keys config.schema.json allows for the server\'s transport, without the other transport\'s', async () => {
    const stdio = keysOf(await formOf({ command: 'node', args: ['server.js'] }));
    expect(stdio).toEqual(expect.arrayContaining(['command', 'env', 'idle_timeout_seconds', 'lifecycle', 'sampling', 'elicitation', 'supports_parallel_tool_calls']));
    for (const key of ['url', 'headers', 'auth', 'oauth', 'transport', 'skip_preflight']) expect(stdio).not.toContain(key);

    const http = keysOf(await formOf({ url: 'https://mcp.example.test/mcp' }));
    expect(http).toEqual(expect.arrayContaining(['url', 'headers', 'auth', 'oauth', 'sampling', 'elicitation']));
    for (const key of ['command', 'env', 'idle_timeout_seconds', 'lifecycle']) expect(http).not.toContain(key);
  });

  it.each([140, 80])('at %i columns shows every label whole, the longest included', async (columns) => {
    const form = await formOf({ command: 'node' });
    const drawn = <InputRouter><Form title={form.title} fields={form.fields} width={columns} height={60} onSubmit={() => {}} onCancel={() => {}} /></InputRouter>;
    const view = render(drawn);
    views.push(view);
    // ink-testing-library's terminal is 100 columns: set this one, then draw again at that width.
    Object.defineProperty(view.stdout, 'columns', { value: columns, configurable: true });
    view.stdout.emit('resize');
    view.rerender(drawn);
    const frame = await waitForFrame(view.lastFrame, (f) => f.includes('Edit MCP server "fx"'));
    expect(frame).toMatch(/ supports_parallel_tool_calls +\S/);
    expect(frame).not.toContain('~');
  });
});
