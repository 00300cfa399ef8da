import { afterEach, describe, expect, it } from 'vitest';
import { bottomLine, renderConsole, slash } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('Jobs pane (3) and /cron', () => {
  it('lists jobs with schedule, a countdown and the last status; Enter shows the run history', async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin, gateway } = view;
    const created = await gateway.jobs.create({ schedule: 'every 1h', prompt: 'summarise the news', name: 'news', deliver: 'log' });
    expect(created.ok).toBe(true);
    stdin.write('3');
    const list = await waitForFrame(lastFrame, (f) => /news\s+every 1h\s+in 59m \d\ds\s+never ran/.test(f));
    expect(list).toContain(' 3 Jobs ');
    const run = await gateway.jobs.runNow('news');
    expect(run.ok && run.value.status).toBe('ok');
    await waitForFrame(lastFrame, (f) => /news\s+every 1h\s+in 59m \d\ds\s+last ok/.test(f));
    stdin.write(keys.enter);
    // The run history is read after the details open: wait for its row, not the first frame.
    const history = await waitForFrame(lastFrame, (f) => f.includes('Prompt: summarise the news') && / manual\s/.test(f));
    expect(history).toContain(`news (${created.ok ? created.value.id : ''}) · every 1h · deliver log · enabled`);
    expect(history).toMatch(/\d\d:\d\d:\d\d manual\s+ok\s+\d+s\s+log: /);
  });

  it('/cron create, list, run, pause, resume and remove go through the core and show in the pane', { timeout: 90_000 }, async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin, gateway } = view;
    stdin.write('3');
    await waitForFrame(lastFrame, (f) => f.includes('No jobs. Create one with /cron create'));
    await slash(stdin, lastFrame, 'cron create "every 2h" check the build --name build --deliver log');
    const created = await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Created job build'));
    expect(bottomLine(created)).toMatch(/Created job build \([0-9a-f]{8}\), every 2h, next run in 2h 00m; answers go to log\./);
    await waitForFrame(lastFrame, (f) => /build\s+every 2h\s+in 1h 59m/.test(f));
    expect((await gateway.jobs.list())[0]).toMatchObject({ name: 'build', prompt: 'check the build', origin: 'console' });

    await slash(stdin, lastFrame, 'cron list');
    await waitForFrame(lastFrame, (f) => /1 job\(s\): build \([0-9a-f]{8}\) every 2h/.test(bottomLine(f)));
    await slash(stdin, lastFrame, 'cron run build');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Job build run ok'), 20_000);
    await slash(stdin, lastFrame, 'cron pause build');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Paused job build') && /build\s+every 2h\s+paused\s+last ok/.test(f));
    await slash(stdin, lastFrame, 'cron pause build');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Cannot pause the job: job build') && bottomLine(f).includes('is already paused'));
    await slash(stdin, lastFrame, 'cron resume build');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Resumed job build') && /build\s+every 2h\s+in 1h 59m/.test(f));
    await slash(stdin, lastFrame, 'cron remove build');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('Removed job build') && f.includes('No jobs.'));
    await slash(stdin, lastFrame, 'cron create never');
    await waitForFrame(lastFrame, (f) => bottomLine(f).startsWith('Usage: /cron create'));
    await slash(stdin, lastFrame, 'cron create "every banana" do it');
    const refused = await waitForFrame(lastFrame, (f) => bottomLine(f).startsWith('Job not created:'));
    expect(bottomLine(refused)).not.toContain('Job not created: Job not created');
  });

  it('/reload-mcp reports what changed', async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    await slash(stdin, lastFrame, 'reload-mcp');
    await waitForFrame(lastFrame, (f) => bottomLine(f).includes('MCP reload: added (none), changed (none), removed (none), kept (none)'));
  });
});
