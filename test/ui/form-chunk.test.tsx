import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('keys that arrive together in a form', () => {
  it('Tabs sent in one write move one field each, and the text after them goes to the field they reach', { timeout: 30_000 }, async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin, gateway } = view;
    const created = await gateway.jobs.create({ schedule: 'every 3h', prompt: 'summarise the night', name: 'nightly', deliver: 'log' });
    if (!created.ok) throw new Error(created.reason);
    stdin.write('3');
    await waitForFrame(lastFrame, (f) => /nightly\s+every 3h/.test(f));
    stdin.write('e');
    await waitForFrame(lastFrame, (f) => /❯ schedule \*\s+every 3h/.test(f));
    stdin.write('\t\tX');
    const moved = await waitForFrame(lastFrame, (f) => /❯ name\s+nightlyX/.test(f));
    expect(moved).toMatch(/ prompt \*\s+summarise the night +│/);
    expect(moved).not.toContain('\t');
  });
});
