import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, renderConsole, typeText } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';
import { SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const wheel = (code: 64 | 65) => `\u001B[<${code};20;10M`;
const titleOf = (frame: string) => frame.split('\n').find((line) => line.startsWith('Routes and requests')) ?? '';
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the mouse wheel in the console', () => {
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
});
