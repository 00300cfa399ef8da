import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { renderConsole, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

async function consoleWith(script: Parameters<typeof startScriptedModel>[0]) {
  const model: ScriptedModel = await startScriptedModel(script);
  closers.push(model.close);
  const view = await renderConsole({ edit: (config) => { config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' }; } });
  closers.push(view.close);
  return view;
}

/** Opens the command line and waits until its input is the bottom line. */
async function openCommandLine(stdin: { write(data: string): void }, lastFrame: () => string | undefined) {
  stdin.write('/');
  await waitForFrame(lastFrame, (frame) => frame.trimEnd().split('\n').at(-1)!.trim() === '/');
}

/** Starts a run from the command line whose tool call needs approval, and opens the deny reason of its dialog. */
async function openDenyReason(stdin: { write(data: string): void }, lastFrame: () => string | undefined, command: string) {
  await openCommandLine(stdin, lastFrame);
  await typeText(stdin, lastFrame, command);
  stdin.write(keys.enter);
  await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 1'));
  stdin.write('d');
  await waitForFrame(lastFrame, (frame) => frame.includes('Reason (optional, Enter to deny):'));
}

describe('console app with a real gateway core and the scripted model', () => {
  it('drives a dangerous tool call from the approval key press to a finished run', async () => {
    const { lastFrame, stdin, home, gateway } = await consoleWith([
      { toolCalls: [{ name: 'terminal', args: { command: 'rm -rf scratch && echo removed' } }] },
      { text: 'Scratch folder cleaned.' },
    ]);
    fs.mkdirSync(path.join(home.workspaceDir, 'scratch'), { recursive: true });
    await waitForFrame(lastFrame, (frame) => frame.includes('approvals 0'));
    await openCommandLine(stdin, lastFrame);
    await typeText(stdin, lastFrame, 'run clean the scratch folder');
    stdin.write(keys.enter);

    const dialog = await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 1'));
    expect(dialog).toContain('from console');
    expect(dialog).toContain('terminal (matches: recursive delete)');
    expect(dialog).toContain('"command": "rm -rf scratch && echo removed"');
    expect(dialog).toContain('a approve once · s approve for the session · d deny · Esc later (A reopens)');
    expect(dialog).toContain('approvals 1');
    expect(fs.existsSync(path.join(home.workspaceDir, 'scratch'))).toBe(true);

    stdin.write('a');
    await waitForFrame(lastFrame, (frame) => frame.includes('Run ok; see the Output pane'));
    expect(fs.existsSync(path.join(home.workspaceDir, 'scratch'))).toBe(false);
    stdin.write('6');
    const output = await waitForFrame(lastFrame, (frame) => frame.includes('Scratch folder cleaned.'));
    expect(output).toContain('approvals 0');
    expect(gateway.approvals.pending()).toEqual([]);
  });

  it('denies with a reason typed in the dialog; the model is told not to retry', async () => {
    const { lastFrame, stdin } = await consoleWith([
      { toolCalls: [{ name: 'terminal', args: { command: 'sudo reboot' } }] },
      { text: 'Understood, not rebooting.' },
    ]);
    await openDenyReason(stdin, lastFrame, 'run reboot the box');
    // Letters of the reason are text: q must not ask to quit.
    await typeText(stdin, lastFrame, 'not now, quit asking');
    expect(lastFrame()).toContain('Reason (optional, Enter to deny): not now, quit asking');
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (frame) => frame.includes('Run ok'));
    stdin.write('6');
    await waitForFrame(lastFrame, (frame) => frame.includes('Understood, not rebooting.'));
  });

  it('gives the keys back when the request goes away while its deny reason is typed', async () => {
    const { lastFrame, stdin, gateway, quits } = await consoleWith([
      { toolCalls: [{ name: 'terminal', args: { command: 'sudo reboot' } }] },
      { text: 'Denied elsewhere, fine.' },
    ]);
    await openDenyReason(stdin, lastFrame, 'run reboot the box');
    // Decided from another terminal (switchboard approvals deny) while the reason was open.
    await gateway.approvals.resolve(gateway.approvals.pending()[0]!.id, 'denied', { by: 'cli' });
    await waitForFrame(lastFrame, (frame) => frame.includes('approvals 0') && !frame.includes('Reason (optional'));
    await waitForFrame(lastFrame, (frame) => frame.includes('runs 0') && frame.includes('Run ok; see the Output pane'));
    // Ink attaches the newest key handler after a paint, so a key sent at once can meet the old one:
    // press q until it quits (with the keys still captured, it never would).
    for (let tries = 0; quits() === 0 && tries < 100; tries += 1) {
      stdin.write('q');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(quits()).toBeGreaterThan(0);
  });

  it('opens help over the approval dialog; closing it gives the keys back to the dialog, not to the panes', async () => {
    const { lastFrame, stdin } = await consoleWith([
      { toolCalls: [{ name: 'terminal', args: { command: 'sudo reboot' } }] },
      { text: 'Rebooted.' },
    ]);
    await openCommandLine(stdin, lastFrame);
    await typeText(stdin, lastFrame, 'run reboot the box');
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 1'));
    stdin.write('?');
    await waitForFrame(lastFrame, (frame) => frame.includes('close this help') && !frame.includes('Approval 1 of 1'));
    stdin.write('x');
    await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 1') && !frame.includes('close this help'));
    // Pane keys wait under the dialog: 6 does not switch to the Output pane.
    stdin.write('6');
    await new Promise((resolve) => setImmediate(resolve));
    stdin.write('a');
    await waitForFrame(lastFrame, (frame) => frame.includes('Run ok; see the Output pane'));
    expect(lastFrame()).not.toContain('Rebooted.');
  });

  it('lists every key with ?, and quits on q when nothing runs', async () => {
    const { lastFrame, stdin, quits } = await consoleWith([{ text: 'unused' }]);
    stdin.write('?');
    const help = await waitForFrame(lastFrame, (frame) => frame.includes('Keys'));
    expect(help).toMatch(/lines 1-\d+\/\d+/);
    // The help scrolls, and F finds in it like in any details view.
    stdin.write('F');
    await waitForFrame(lastFrame, (frame) => frame.includes('find:'));
    stdin.write('for the session');
    stdin.write('\r');
    await waitForFrame(lastFrame, (frame) => frame.includes('approve this tool for the session') && frame.includes('"for the session": 1 line(s)'));
    stdin.write('G');
    await waitForFrame(lastFrame, (frame) => frame.includes('/run <prompt>') && frame.includes('close this help'));
    stdin.write('x');
    await waitForFrame(lastFrame, (frame) => !frame.includes('close this help'));
    stdin.write('q');
    await expect.poll(quits).toBe(1);
  });
});

describe('console /install', () => {
  it('shows the confirmation with the command caution, installs on y, and refuses a taken name', async () => {
    const { lastFrame, stdin, home } = await consoleWith([{ text: 'unused' }]);
    const { buildInstallLink } = await import('../../source/mcp/install-link.js');
    const link = buildInstallLink('notes', { command: 'node', args: ['notes-server.js'], enabled: false });
    await openCommandLine(stdin, lastFrame);
    stdin.write(`install ${link}`);
    await waitForFrame(lastFrame, (frame) => frame.includes('install switchboard://'));
    stdin.write(keys.enter);
    const dialog = await waitForFrame(lastFrame, (frame) => frame.includes('Install MCP server "notes" (local command)?'));
    expect(dialog).toContain('CAUTION: this server runs a program on this machine, with your rights:');
    expect(dialog).toContain('node notes-server.js');
    stdin.write('y');
    await waitForFrame(lastFrame, (frame) => frame.includes('Installed MCP server "notes"; connecting it.'));
    const config = JSON.parse(fs.readFileSync(home.configFile, 'utf8'));
    expect(config.mcp_servers.notes).toEqual({ command: 'node', args: ['notes-server.js'], enabled: false });

    await openCommandLine(stdin, lastFrame);
    stdin.write(`install ${link}`);
    await waitForFrame(lastFrame, (frame) => frame.includes('install switchboard://'));
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (frame) => frame.includes('already exists and will not be overwritten'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (frame) => frame.includes('Install cancelled; nothing was written.'));

    await openCommandLine(stdin, lastFrame);
    stdin.write('install switchboard://mcp/install?name=x');
    await waitForFrame(lastFrame, (frame) => frame.includes('name=x'));
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (frame) => frame.includes('Install link rejected (missing_config)'));
  });
});
