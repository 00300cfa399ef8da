import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { SECRET } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

// eslint-disable-next-line no-control-regex
const plain = (frame: string) => frame.replace(/\u001B\[[0-9;]*m/g, '');
const fits = (frame: string, columns: number, rows: number) => {
  const lines = plain(frame).split('\n');
  return lines.length <= rows && lines.every((line) => line.length <= columns);
};

async function sized(columns: number, rows: number) {
  const view = await renderConsole({
    size: { columns, rows },
    edit: (config) => {
      config.platforms!.webhook!.enabled = true;
      config.platforms!.webhook!.extra!.routes = { 'a-route-with-a-rather-long-name': { secret: SECRET } };
    },
  });
  closers.push(view.close);
  // Some long content: jobs with long names and prompts.
  for (let i = 0; i < 30; i += 1) await view.gateway.jobs.create({ schedule: 'every 3h', prompt: `a long prompt ${'x'.repeat(200)}`, name: `job-${i}-${'n'.repeat(40)}`, deliver: 'log' });
  return view;
}

describe('console layout', () => {
  it('80x24 stacks the active pane over a second one and never overflows, on every pane and in help', async () => {
    const { lastFrame, stdin } = await sized(80, 24);
    // The Logs pane is active at start, with Approvals under it; any other pane has Logs under it.
    await waitForFrame(lastFrame, (f) => f.includes(' 1 MCP  2 Webhooks  3 Jobs  4 Approvals  5 Logs  6 Output') && f.includes(`── Approvals ${'─'.repeat(80 - 13)}\n`));
    stdin.write('1');
    await waitForFrame(lastFrame, (f) => f.includes('No MCP servers.') && f.includes('── Logs ──'));
    for (const pane of ['1', '2', '3', '4', '5', '6']) {
      stdin.write(pane);
      await new Promise((resolve) => setImmediate(resolve));
      const frame = await waitForFrame(lastFrame, (f) => f.includes(' 1 MCP'));
      expect(fits(frame, 80, 24), `pane ${pane} overflows:\n${frame}`).toBe(true);
    }
    stdin.write('3');
    const jobs = await waitForFrame(lastFrame, (f) => f.includes('job-0-'));
    expect(fits(jobs, 80, 24)).toBe(true);
    // A long list is windowed: only what fits is drawn.
    expect(plain(jobs).match(/job-\d+-/g)!.length).toBeLessThan(30);
    stdin.write('?');
    const help = await waitForFrame(lastFrame, (f) => f.includes('close this help'));
    expect(fits(help, 80, 24), `help overflows:\n${help}`).toBe(true);
    stdin.write('x');
    await waitForFrame(lastFrame, (f) => !f.includes('close this help'));
    // Forms too: the job form (long prompt) and a route form.
    stdin.write('e');
    const jobForm = await waitForFrame(lastFrame, (f) => f.includes('Edit job job-'));
    expect(fits(jobForm, 80, 24), `job form overflows:\n${jobForm}`).toBe(true);
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => f.includes('Edit cancelled'));
    stdin.write('2');
    await waitForFrame(lastFrame, (f) => f.includes('route a-route-with'));
    stdin.write('e');
    const routeForm = await waitForFrame(lastFrame, (f) => f.includes('Edit webhook route "a-route-with-a-rather-long-name"'));
    expect(fits(routeForm, 80, 24), `route form overflows:\n${routeForm}`).toBe(true);
  });

  it('140x45 keeps two columns: the active pane and the log pane side by side; Tab and Shift-Tab walk panes 1-6 in order', async () => {
    const { lastFrame, stdin } = await sized(140, 45);
    const frame = await waitForFrame(lastFrame, (f) => f.includes(' 1 MCP servers  2 Webhook deliveries  3 Jobs  4 Approvals  5 Logs  6 Output'));
    expect(fits(frame, 140, 45)).toBe(true);
    expect(frame).not.toContain('── Logs ──');
    stdin.write('2');
    const side = await waitForFrame(lastFrame, (f) => f.includes('route a-route-with-a-rath~ http://127.0.0.1:'));
    // The log pane is the right column: its lines start past the 60% the active pane takes.
    const logLine = side.split('\n').find((line) => line.includes('Webhook listener on'));
    expect(logLine && logLine.indexOf('Webhook listener on') > 84, `no log pane on the right:\n${side}`).toBe(true);
    stdin.write(keys.tab);
    await waitForFrame(lastFrame, (f) => f.includes('job-0-'));
    stdin.write(keys.shiftTab);
    await waitForFrame(lastFrame, (f) => f.includes('route a-route') && !f.includes('job-0-'));
    stdin.write(keys.shiftTab);
    await waitForFrame(lastFrame, (f) => f.includes('No MCP servers.'));
    stdin.write(keys.shiftTab);
    await waitForFrame(lastFrame, (f) => f.includes('No output yet.'));
  });
});
