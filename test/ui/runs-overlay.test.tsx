import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { readyConsole } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('runs in flight in the console (X)', () => {
  it('lists a running run with its origin and prompt, and x cancels it after y', { timeout: 60_000 }, async () => {
    const model = await startScriptedModel([{ text: 'too late', delayMs: 60_000 }]);
    closers.push(() => model.close());
    const view = await readyConsole(closers, { size: { columns: 140, rows: 30 }, edit: (config) => { config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' }; } });
    const running = view.host.operations.runs.run({ prompt: 'summarise the incident channel', origin: 'cli' });
    await waitForFrame(view.lastFrame, (f) => f.includes('runs 1'), 10_000);
    view.stdin.write('X');
    await waitForFrame(view.lastFrame, (f) => f.includes('Runs in flight (1)') && f.includes('cli · summarise the incident channel'));
    view.stdin.write('x');
    await waitForFrame(view.lastFrame, (f) => f.includes('y / any other key'));
    view.stdin.write('n');
    await waitForFrame(view.lastFrame, (f) => f.includes('Not cancelled.'));
    view.stdin.write('x');
    await waitForFrame(view.lastFrame, (f) => f.includes('y / any other key'));
    view.stdin.write('y');
    await waitForFrame(view.lastFrame, (f) => f.includes('Cancelled run'));
    expect((await running).status).toBe('cancelled');
    await waitForFrame(view.lastFrame, (f) => f.includes('No run is in flight.'));
  });
});
