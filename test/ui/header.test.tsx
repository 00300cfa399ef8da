import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Header } from '../../source/ui/components/Header.js';
import { renderConsole } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

// eslint-disable-next-line no-control-regex
const plain = (frame: string) => frame.replace(/\u001B\[[0-9;]*m/g, '');
const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('the console header', () => {
  it('keeps the full listener URL and the model name at 80 columns, shortening the rest first', async () => {
    const view = await renderConsole({
      size: { columns: 80, rows: 24 },
      edit: (config) => { config.model = { provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', name: 'qwen-coder' }; },
    });
    closers.push(view.close);
    const url = view.gateway.snapshot().webhook.url!;
    // The first frames may come before the test terminal's resize to 80 columns.
    const frame = await waitForFrame(view.lastFrame, (f) => f.includes(url) && plain(f).split('\n').every((line) => line.length <= 80));
    const header = plain(frame).split('\n')[0]!;
    expect(header).toContain(`in-process · ${url} · qwen-coder`);
    expect(header).toMatch(/runs 0 · appr 0 · failed 0$/);
  });

  it('shows everything, clock included, where it fits', async () => {
    const view = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    const frame = await waitForFrame(view.lastFrame, (f) => /up \d/.test(f));
    expect(plain(frame).split('\n')[0]).toMatch(/^switchboard in-process · http:\/\/127\.0\.0\.1:\d+ · model dry-run · up \S+ +runs 0 · approvals 0 · failed deliveries 0 · \d\d:\d\d:\d\d$/);
  });

  it('drops the uptime before the clock where both do not fit', async () => {
    const wide = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(wide.close);
    const full = plain(await waitForFrame(wide.lastFrame, (f) => /up \d/.test(f))).split('\n')[0]!.replace(/ {2,}/, '  ');
    const narrow = await renderConsole({ size: { columns: full.length - 2, rows: 30 } });
    closers.push(narrow.close);
    const frame = await waitForFrame(narrow.lastFrame, (f) => /failed deliveries 0/.test(f) && plain(f).split('\n').every((line) => line.length <= full.length - 2));
    const header = plain(frame).split('\n')[0]!;
    expect(header).not.toContain(' · up ');
    expect(header).toMatch(/ · model dry-run +runs 0 · approvals 0 · failed deliveries 0 · \d\d:\d\d:\d\d$/);
  });
});

describe('the header of a console whose gateway stopped', () => {
  it('says the gateway stopped instead of a listener "starting"', () => {
    type State = Parameters<typeof Header>[0]['state'];
    const state = (status: string) => ({
      snapshot: { status, webhook: { enabled: true, url: null }, startedAtMs: null, model: 'dry-run', health: undefined },
      link: { where: 'attached', status: 'disconnected', hello: { pid: 4242 }, detail: 'connection closed' },
      approvals: [], runsInFlight: 0, failedDeliveries: 0,
    }) as unknown as State;
    const lines = (status: string) => plain(render(<Header state={state(status)} now={0} width={140} />).lastFrame()!).split('\n');
    expect(lines('stopped')[0]).toContain('attached to pid 4242 · gateway stopped · model dry-run');
    expect(lines('stopping')[0]).toContain('· gateway stopping ·');
    expect(lines('starting')[0]).toContain('· starting ·');
    expect(lines('stopped')[1]).toContain('disconnected from the gateway (pid 4242), retrying: connection closed');
  });
});

describe('the header of an attached console at 100 columns', () => {
  it('keeps "attached to" and drops the brand first', () => {
    type State = Parameters<typeof Header>[0]['state'];
    const state = {
      snapshot: { status: 'running', webhook: { enabled: true, url: 'http://127.0.0.1:8644' }, startedAtMs: 0, model: 'dry-run', health: undefined },
      link: { where: 'attached', status: 'connected', hello: { pid: 19874 } },
      approvals: [], runsInFlight: 0, failedDeliveries: 0,
    } as unknown as State;
    const line = plain(render(<Header state={state} now={60_000} width={100} />).lastFrame()!).split('\n')[0]!;
    expect(line.length).toBeLessThanOrEqual(100);
    expect(line).toMatch(/^attached to pid 19874 · http:\/\/127\.0\.0\.1:8644 · model dry-run +runs 0 · approvals 0 · failed 0$/);
  });
});
