import { afterEach, describe, expect, it } from 'vitest';
import { slashCommands } from '../../source/ui/slash-commands.js';
import { bottomLine, slash, ticks, readyConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('the command line', () => {
  it('recalls the lines run before with ↑ and ↓, back to what was being typed', async () => {
    const view = await readyConsole(closers, { size: { columns: 120, rows: 30 } });
    await slash(view.stdin, view.lastFrame, 'first-unknown');
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /first-unknown'));
    await slash(view.stdin, view.lastFrame, 'second-unknown');
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /second-unknown'));

    view.stdin.write('/');
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/');
    view.stdin.write(keys.up);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/second-unknown');
    view.stdin.write(keys.up);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/first-unknown');
    view.stdin.write(keys.up); // nothing older: stays
    await ticks();
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/first-unknown');
    view.stdin.write(keys.down);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/second-unknown');
    view.stdin.write(keys.down);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/');
    view.stdin.write(keys.up);
    await waitForFrame(view.lastFrame, (f) => bottomLine(f).trim() === '/second-unknown');
    view.stdin.write(keys.enter);
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /second-unknown'));
  });

  it('M recalls the messages the bottom line showed, newest first', async () => {
    const view = await readyConsole(closers, { size: { columns: 120, rows: 30 } });
    await slash(view.stdin, view.lastFrame, 'older-one');
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /older-one'));
    await slash(view.stdin, view.lastFrame, 'newer-one');
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /newer-one'));
    view.stdin.write('M');
    const frame = await waitForFrame(view.lastFrame, (f) => f.includes('Messages (2, newest first)'));
    expect(frame.indexOf('Unknown command /newer-one')).toBeLessThan(frame.indexOf('Unknown command /older-one'));
    view.stdin.write(keys.escape);
    await waitForFrame(view.lastFrame, (f) => !f.includes('Messages (2'));
  });

  it('M, then Enter on a message cut in the list shows it whole, wrapped; Esc goes back to the list', async () => {
    const view = await readyConsole(closers, { size: { columns: 80, rows: 24 } });
    await slash(view.stdin, view.lastFrame, 'a-long-unknown-command-name');
    const message = `Unknown command /a-long-unknown-command-name. Known: ${slashCommands.map((command) => `/${command.name}`).join(', ')}`;
    await waitForFrame(view.lastFrame, (f) => f.includes('Unknown command /a-long'));
    view.stdin.write('M');
    const list = await waitForFrame(view.lastFrame, (f) => f.includes('Messages (1, newest first)'));
    expect(list).toMatch(/Known: .*~ │/);
    await ticks();
    view.stdin.write(keys.enter);
    // The view's rows, without the border, read as the whole message.
    const rows = (frame: string) => frame.split('\n').map((line) => line.replace(/^│ |\s*│$/g, '').trimEnd()).join(' ');
    await waitForFrame(view.lastFrame, (f) => rows(f).includes(message) && f.includes('Esc back to the messages'));
    await ticks();
    view.stdin.write(keys.escape);
    await waitForFrame(view.lastFrame, (f) => f.includes('Messages (1, newest first)'));
    await ticks();
    view.stdin.write(keys.escape);
    await waitForFrame(view.lastFrame, (f) => !f.includes('Messages (1'));
  });
});
