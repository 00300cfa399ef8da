import { afterEach, describe, expect, it } from 'vitest';
import { NOTICE_SHOWN_MS, paneHint } from '../../source/ui/pane-hints.js';
import { renderConsole } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });
const ticks = async (n = 5) => { for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve)); };
const bottom = (frame: string) => frame.trimEnd().split('\n').at(-1)!.trim();

describe('the bottom line', () => {
  it('names the keys of each pane, and the global ones', () => {
    expect(paneHint('Webhooks')).toBe('↑↓ select · Enter details · r replay · t test · c copy · e edit · f follow · F filter · X runs · D deliveries · M messages · / commands · ? all keys');
    expect(paneHint('Logs')).toMatch(/^↑↓ PgUp\/PgDn g\/G · Enter whole line · F filter · X runs · D deliveries/);
  });

  it('shows a notice, then once it is old the keys of the focused pane, which follow the pane', { timeout: 60_000 }, async () => {
    const view = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    await waitForFrame(view.lastFrame, (f) => bottom(f) === 'Press ? for keys, / for commands.');
    await waitForFrame(view.lastFrame, (f) => bottom(f) === paneHint('Logs'), NOTICE_SHOWN_MS + 5_000);
    await ticks();
    view.stdin.write('2');
    await waitForFrame(view.lastFrame, (f) => bottom(f) === paneHint('Webhooks'));
  });
});
