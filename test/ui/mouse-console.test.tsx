import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, renderConsole, typeText } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';
import { SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const wheel = (code: 64 | 65) => `\u001B[<${code};20;10M`;
/** A left press at a 0-based screen cell (SGR reports count from 1). */
const click = (column: number, row: number) => `\u001B[<0;${column + 1};${row + 1}M\u001B[<0;${column + 1};${row + 1}m`;
const rowOf = (frame: string, text: string) => frame.split('\n').findIndex((line) => line.includes(text));
const titleOf = (frame: string) => frame.split('\n').find((line) => line.startsWith('Routes and requests')) ?? '';
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the mouse in the console', () => {
  it('moves the focused pane\'s selection like the arrows, and types nothing into the command line', async () => {
    const view = await renderConsole({
      size: { columns: 160, rows: 40 },
      edit: (config) => {
        config.platforms!.webhook!.enabled = true;
        config.platforms!.webhook!.extra!.routes = { a: { secret: SECRET }, b: { secret: SECRET }, c: { secret: SECRET } };
      },
    });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('2');
    await waitForFrame(lastFrame, (frame) => titleOf(frame).includes('1/3'));
    // Two notches in one read: two rows.
    stdin.write(wheel(65) + wheel(65));
    await waitForFrame(lastFrame, (frame) => titleOf(frame).includes('3/3'));
    stdin.write(wheel(64));
    await waitForFrame(lastFrame, (frame) => titleOf(frame).includes('2/3'));

    stdin.write('/');
    await waitForFrame(lastFrame, (frame) => bottomLine(frame).trim() === '/');
    await typeText(stdin, lastFrame, 'he');
    stdin.write(wheel(65));
    await tick();
    await typeText(stdin, lastFrame, 'lp');
    expect(bottomLine(lastFrame()!).trim()).toBe('/help');
    expect(lastFrame()).not.toContain('[<');
  });

  it('a click on a tab goes to its pane; on a row selects it, and on the selected row opens it; the other pane takes focus on a click', async () => {
    const view = await renderConsole({
      size: { columns: 160, rows: 40 },
      edit: (config) => {
        config.platforms!.webhook!.enabled = true;
        config.platforms!.webhook!.extra!.routes = { alpha: { secret: SECRET }, beta: { secret: SECRET }, gamma: { secret: SECRET } };
      },
    });
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    const tabs = (await waitForFrame(lastFrame, (f) => f.includes('2 Webhook deliveries') && f.includes('Logs, newest first'))).split('\n')[1]!;
    stdin.write(click(tabs.indexOf('Webhook deliveries'), 1));
    await waitForFrame(lastFrame, (frame) => titleOf(frame).includes('1/3'));
    const frame = lastFrame()!;
    stdin.write(click(5, rowOf(frame, 'route gamma')));
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('3/3'));
    stdin.write(click(5, rowOf(lastFrame()!, 'route gamma')));
    await waitForFrame(lastFrame, (f) => f.includes('Route gamma') && f.includes('t test · c copy URL or secret'));
    stdin.write('\u001B');
    await waitForFrame(lastFrame, (f) => titleOf(f).includes('3/3'));
    // Wide: Logs is the pane on the right; a click there focuses it (the Logs tab turns active).
    const logs = lastFrame()!.split('\n').find((line) => line.includes('Logs, newest first'))!;
    stdin.write(click(logs.indexOf('Logs, newest first') + 2, rowOf(lastFrame()!, 'Logs, newest first')));
    await waitForFrame(lastFrame, (f) => f.includes('Approvals') && !titleOf(f).includes('3/3') && f.split('\n').some((line) => line.startsWith('Logs, newest first')));
  });
});
