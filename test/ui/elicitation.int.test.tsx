import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../source/config/types.js';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from '../fixtures/scripted-model.js';
import { bottomLine, focusField, renderConsole, replaceText, slash, submitForm, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { EVERYTHING, FIXTURE_SERVER, NODE } from '../helpers/mcp.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** The console over a real gateway core with one real MCP server and the scripted model. */
async function consoleWith(server: McpServerConfig, script: ScriptStep[]) {
  const model: ScriptedModel = await startScriptedModel(script);
  closers.push(model.close);
  const view = await renderConsole({
    edit: (config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' };
      config.mcp_servers = { srv: server };
    },
    size: { columns: 120, rows: 30 },
  });
  closers.push(view.close);
  view.stdin.write('1');
  await waitForFrame(view.lastFrame, (frame) => /srv\s+● ready/.test(frame), 20_000);
  return { ...view, model };
}

/** The text of the tool results the model was sent back. */
function toolResults(model: ScriptedModel): string {
  return model.requests.flatMap((request) => (request.body.messages as Array<{ role: string; content: unknown }>))
    .filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content)).join('\n');
}

describe('MCP elicitation forms in the approval dialog', () => {
  it('renders server-everything\'s form (every field type), checks types, sends the values and the run finishes', async () => {
    const { lastFrame, stdin, model, gateway } = await consoleWith({ command: NODE, args: [EVERYTHING, 'stdio'] }, [
      { toolCalls: [{ name: 'mcp__srv__trigger_elicitation_request', args: {} }] },
      { text: 'Thanks for the details.' },
    ]);
    await slash(stdin, lastFrame, 'run collect my details');
    const dialog = await waitForFrame(lastFrame, (f) => f.includes('Input requested 1 of 1'), 15_000);
    expect(dialog).toContain('srv asks: Please provide inputs for the following fields:');
    expect(dialog).toContain('String *');
    expect(dialog).toContain('Integer (default 42)');
    expect(dialog).toContain('a fill in the form · d decline · Esc later');
    expect(dialog).toContain('approvals 1');

    // Letters are text in the form: q and ? must not quit or open help.
    stdin.write('a');
    await waitForFrame(lastFrame, (f) => f.includes('❯ String *'));
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => /❯ String \*/.test(f) && f.includes('is required'));
    await typeText(stdin, lastFrame, 'Ada q? Lovelace');
    await focusField(stdin, lastFrame, 'Boolean ');
    await typeText(stdin, lastFrame, 'yes');
    await focusField(stdin, lastFrame, 'String with email format');
    await typeText(stdin, lastFrame, 'not-an-email');
    await focusField(stdin, lastFrame, 'Integer ');
    await replaceText(stdin, lastFrame, '500');
    await focusField(stdin, lastFrame, 'Titled Single');
    await replaceText(stdin, lastFrame, 'Wonder Woman');
    await focusField(stdin, lastFrame, 'Titled Multiple');
    await replaceText(stdin, lastFrame, 'fish-1, fish-9');
    await submitForm(stdin);
    const checked = await waitForFrame(lastFrame, (f) => f.includes('"not-an-email" is not an email address'));
    expect(checked).toContain('must be from 1 to 100 (got 500)');
    expect(checked).toContain('must be one of fish-1, fish-2, fish-3 (got "fish-9")');

    await focusField(stdin, lastFrame, 'String with email format');
    await replaceText(stdin, lastFrame, 'ada@example.com');
    await focusField(stdin, lastFrame, 'Integer ');
    await replaceText(stdin, lastFrame, '7');
    await focusField(stdin, lastFrame, 'Titled Multiple');
    await replaceText(stdin, lastFrame, 'Tuna, Trout');
    await submitForm(stdin);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Run ok; see the Output pane'), 15_000);
    const sent = toolResults(model);
    for (const part of ['\\"name\\": \\"Ada q? Lovelace\\"', '\\"check\\": true', '\\"email\\": \\"ada@example.com\\"', '\\"integer\\": 7', '\\"number\\": 3.14',
      '\\"titledSingleSelectEnum\\": \\"hero-3\\"', '\\"firstLine\\": \\"It was a dark and stormy night.\\"', '\\"untitledMultipleSelectEnum\\": [\\n      \\"Guitar\\"']) {
      expect(sent).toContain(part);
    }
    expect(sent).toMatch(/titledMultipleSelectEnum\\": \[\\n\s+\\"fish-1\\",\\n\s+\\"fish-3\\"/);
    expect(gateway.approvals.pending()).toEqual([]);
  });

  it('declines with d (the server hears decline) and with Esc from inside the form', async () => {
    const { lastFrame, stdin, model } = await consoleWith({ command: NODE, args: [FIXTURE_SERVER, 'stdio'] }, [
      { toolCalls: [{ name: 'mcp__srv__ask', args: {} }] },
      { text: 'Declined, fine.' },
      { toolCalls: [{ name: 'mcp__srv__ask', args: {} }] },
      { text: 'Declined again.' },
    ]);
    await slash(stdin, lastFrame, 'run ask me');
    await waitForFrame(lastFrame, (f) => f.includes('srv asks: Your name?'), 15_000);
    stdin.write('d');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Run ok'), 15_000);
    expect(toolResults(model)).toContain('elicitation decline');

    await slash(stdin, lastFrame, 'run ask me again');
    // Shown soon after the decline, the dialog pauses its keys for a moment first.
    await waitForFrame(lastFrame, (f) => f.includes('srv asks: Your name?') && f.includes('a fill in the form'), 15_000);
    stdin.write('a');
    await waitForFrame(lastFrame, (f) => f.includes('❯ name *'));
    await typeText(stdin, lastFrame, 'half typed');
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Run ok'), 15_000);
    expect(toolResults(model).match(/elicitation decline/g)).toHaveLength(2);
  });
});
