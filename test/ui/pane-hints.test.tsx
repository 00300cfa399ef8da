import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE_SHOWN_MS, paneHint } from '../../source/ui/pane-hints.js';
import { slashCommands } from '../../source/ui/slash-commands.js';
import { bottomLine, renderConsole, slash, ticks, readyConsole } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';
import { SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('the bottom line', () => {
  it('names the keys of each pane, and the global ones', () => {
    expect(paneHint('Webhooks')).toBe('↑↓ select · Enter details · r replay · t test · c copy · e edit · f follow · F filter · X runs · D deliveries · M messages · / commands · ? all keys');
    expect(paneHint('Logs')).toMatch(/^↑↓ PgUp\/PgDn g\/G · Enter whole line · F filter · X runs · D deliveries/);
  });

  it('shows a notice, then once it is old the keys of the focused pane, which follow the pane', { timeout: 60_000 }, async () => {
    const view = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === 'Press ? for keys, / for commands.');
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === paneHint('Logs'), NOTICE_SHOWN_MS + 5_000);
    await ticks();
    view.stdin.write('2');
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === paneHint('Webhooks'));
  });

  it('gives a pane\'s prompt the whole width at 140 columns, not the 60 % the pane has', async () => {
    const view = await renderConsole({
      size: { columns: 140, rows: 45 },
      edit: (config) => { config.platforms!.webhook!.enabled = true; config.platforms!.webhook!.extra!.routes = { demo: { secret: SECRET } }; },
    });
    closers.push(view.close);
    view.stdin.write('2');
    await waitForFrame(view.lastFrame, (f) => f.includes('route demo'));
    await ticks();
    view.stdin.write('c');
    await waitForFrame(view.lastFrame, (f) => bottomLine(f) === 'Copy from route demo: u the URL · s the secret · any other key cancels');
    await ticks();
    view.stdin.write('s');
    const frame = await waitForFrame(view.lastFrame, (f) => bottomLine(f).startsWith('Copy the secret'));
    expect(bottomLine(frame)).toBe('Copy the secret of route demo? y / any other key cancels (no clipboard: a 0600 file, never shown)');
    await ticks();
    view.stdin.write('n');
    await waitForFrame(view.lastFrame, (f) => bottomLine(f) === 'Secret not copied.');
  });

  it('cuts a long notice at the terminal width with ~, as every cut of the console', async () => {
    const view = await readyConsole(closers, { size: { columns: 80, rows: 24 } });
    await slash(view.stdin, view.lastFrame, 'nope');
    const notice = `Unknown command /nope. Known: ${slashCommands.map((command) => `/${command.name}`).join(', ')}`;
    expect(notice.length).toBeGreaterThan(80);
    const frame = await waitForFrame(view.lastFrame, (f) => bottomLine(f).startsWith('Unknown command /nope'));
    expect(bottomLine(frame)).toBe(`${notice.slice(0, 79)}~`);
    expect(frame).not.toContain('…');
  });
});
