import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole, ticks } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('n on a job (Jobs pane)', () => {
  it('asks, runs it now on y (not on another key), and the job shows the run', { timeout: 60_000 }, async () => {
    const view = await renderConsole({ size: { columns: 140, rows: 30 } });
    closers.push(view.close);
    const created = await view.host.operations.jobs.create({ schedule: 'every 1d', prompt: 'Summarise the day', name: 'daily-digest', deliver: 'log', origin: 'cli' });
    await waitForFrame(view.lastFrame, (f) => f.includes(' 1 MCP'));
    await ticks();
    view.stdin.write('3');
    await waitForFrame(view.lastFrame, (f) => f.includes('daily-digest') && f.includes('never ran'));
    await ticks();
    view.stdin.write('n');
    await waitForFrame(view.lastFrame, (f) => f.includes('Run daily-digest now? y / any other key · a real run, delivered to log'));
    view.stdin.write('x');
    await waitForFrame(view.lastFrame, (f) => f.includes('Job daily-digest not run.'));
    expect((await view.host.operations.jobs.runs({ job: created.job.id })).runs).toEqual([]);
    view.stdin.write('n');
    await waitForFrame(view.lastFrame, (f) => f.includes('y / any other key'));
    view.stdin.write('y');
    await waitForFrame(view.lastFrame, (f) => f.includes('Job daily-digest ran: ok'), 20_000);
    await waitForFrame(view.lastFrame, (f) => f.includes('last ok'));
    expect((await view.host.operations.jobs.runs({ job: created.job.id })).runs.map((run) => run.trigger)).toEqual(['manual']);
  });
});
