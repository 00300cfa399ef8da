import { afterEach, describe, expect, it } from 'vitest';
import { renderConsole, ticks } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('failed and uncertain deliveries in the console (D)', () => {
  it('lists them, sends a failed one again with r, and asks before sending an uncertain one again', async () => {
    const view = await renderConsole({ size: { columns: 140, rows: 30 } });
    closers.push(view.close);
    const history = view.gateway.deliveries.history!;
    const subject = { kind: 'webhook' as const, route: 'hook', deliveryId: 'd-1', event: 'push' };
    await history.create({ id: 'aaaaaaaa-failed', target: 'log', extra: {}, subject, output: 'first answer', runFailed: false, createdAtMs: Date.now() - 2000 });
    await history.settle('aaaaaaaa-failed', { status: 'failed', chunksTotal: 1, chunksSent: 0, error: 'HTTP 500 from the chat', atMs: Date.now() - 2000 });
    await history.create({ id: 'bbbbbbbb-uncertain', target: 'log', extra: {}, subject: { ...subject, deliveryId: 'd-2' }, output: 'second answer', runFailed: false, createdAtMs: Date.now() });
    await history.settle('bbbbbbbb-uncertain', { status: 'uncertain', chunksTotal: 0, chunksSent: 0, error: 'the gateway stopped while this was being sent', atMs: Date.now() });
    await view.host.store.committed();

    await waitForFrame(view.lastFrame, (f) => f.includes(' 1 MCP'));
    await ticks();
    view.stdin.write('D');
    await waitForFrame(view.lastFrame, (f) => f.includes('Failed and uncertain deliveries (2)') && f.includes('uncertain bbbbbbbb') && f.includes('failed aaaaaaaa'));

    // The uncertain one is first (newest): r asks, any key but y leaves it.
    view.stdin.write('r');
    await waitForFrame(view.lastFrame, (f) => f.includes('it may have arrived. Send it again? y / any other key'));
    view.stdin.write('n');
    await waitForFrame(view.lastFrame, (f) => f.includes('Not sent again.'));
    expect((await history.get('bbbbbbbb-uncertain'))!.status).toBe('uncertain');
    view.stdin.write('r');
    await waitForFrame(view.lastFrame, (f) => f.includes('Send it again?'));
    view.stdin.write('y');
    await waitForFrame(view.lastFrame, (f) => f.includes('Delivered bbbbbbbb'));
    expect((await history.get('bbbbbbbb-uncertain'))!.status).toBe('delivered');

    // The failed one is sent again at once.
    await waitForFrame(view.lastFrame, (f) => f.includes('Failed and uncertain deliveries (1)'));
    view.stdin.write('r');
    await waitForFrame(view.lastFrame, (f) => f.includes('Delivered aaaaaaaa'));
    expect((await history.get('aaaaaaaa-failed'))!.status).toBe('delivered');
    await waitForFrame(view.lastFrame, (f) => f.includes('No failed or uncertain deliveries.'));
    view.stdin.write('\u001B');
    await waitForFrame(view.lastFrame, (f) => !f.includes('Failed and uncertain deliveries'));
  });
});
