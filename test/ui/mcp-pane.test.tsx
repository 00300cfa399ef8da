import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('MCP servers pane (1)', () => {
  it('shows status, era, transport and tool count; Enter lists tools with read-only marks; R reconnects; l on a server without OAuth says why', async () => {
    const view = await renderConsole({
      edit: (config) => { config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } }; },
    });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('1');
    const list = await waitForFrame(lastFrame, (f) => /fx\s+● ready\s+legacy\s+stdio\s+12 tools/.test(f), 20_000);
    expect(list).toContain(' 1 MCP ');
    stdin.write(keys.enter);
    // The stderr tail is read through operations after the view opens.
    const details = await waitForFrame(lastFrame, (f) => f.includes('Tools (12):') && f.includes('fixture server starting (stdio)'));
    expect(details).toMatch(/mcp__fx__echo\s+\[read-only\]/);
    expect(details).toMatch(/mcp__fx__write_note\s*\n/);
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => f.includes('12 tools'));
    stdin.write('l');
    await waitForFrame(lastFrame, (f) => f.includes('fx does not use OAuth: set mcp_servers.fx.auth to "oauth"'));
    stdin.write('R');
    await waitForFrame(lastFrame, (f) => f.includes('Reconnecting fx'));
    // A real reconnect: the server process is replaced and comes back ready.
    await waitForFrame(lastFrame, (f) => /fx\s+● (connecting|reconnecting)/.test(f), 10_000);
    await waitForFrame(lastFrame, (f) => /fx\s+● ready/.test(f), 20_000);
  });

  it('shows the stderr tail of a failing server under Enter', async () => {
    const view = await renderConsole({
      edit: (config) => { config.mcp_servers = { broken: { command: NODE, args: ['-e', "console.error('boom: BROKEN_API_KEY is not set'); process.exit(1)"] } }; },
    });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('1');
    await waitForFrame(lastFrame, (f) => /broken\s+● (reconnecting|failed)/.test(f), 20_000);
    stdin.write(keys.enter);
    const details = await waitForFrame(lastFrame, (f) => f.includes('stderr (last lines):'));
    expect(details).toContain('boom: BROKEN_API_KEY is not set');
    expect(details).toContain('No tools registered.');
  });

  it('lists under Enter the tools a server skipped because another server has the name', async () => {
    const fixture = { command: NODE, args: [FIXTURE_SERVER, 'stdio'], tools: { include: ['echo'] } };
    // `docs-v1` and `docs_v1` sanitize alike: `docs_v1`, second in config.json, skips `mcp__docs_v1__echo` (whichever connects first).
    const view = await renderConsole({ edit: (config) => { config.mcp_servers = { 'docs-v1': fixture, docs_v1: fixture }; } });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('1');
    const list = await waitForFrame(lastFrame, (f) => /docs_v1\s+● ready\s.*0 tools/.test(f) && /docs-v1\s+● ready\s.*1 tool/.test(f), 20_000);
    const [owner, loser] = ['docs-v1', 'docs_v1'];
    const rows = list.split('\n').filter((line) => /^docs.v1 /.test(line));
    if (rows.findIndex((line) => line.startsWith(loser)) === 1) stdin.write(keys.down);
    stdin.write(keys.enter);
    const details = await waitForFrame(lastFrame, (f) => f.includes(`${loser}: ready`) && f.includes('skipped'));
    expect(details).toContain(`! tool "mcp__docs_v1__echo" (echo) skipped: "${owner}" already provides it`);
  });
});
