import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConsoleModel } from '../../source/ui/console-model.js';
import { makeGateway } from '../helpers/gateway.js';
import { tempHome } from '../helpers/temp-home.js';

/** Render pacing of the console model over a real (not started) gateway core, on a fake clock. */
function setup() {
  const { gateway, store } = makeGateway(tempHome(), () => {}, undefined, 'console');
  const model = createConsoleModel({ gateway, flushMs: 33, burstFlushMs: 100 });
  let flushes = 0;
  model.subscribe(() => { flushes += 1; });
  const webhook = (n: number) => gateway.events.emit('webhook.received', { route: 'r', event: 'push', deliveryId: `d-${n}`, outcome: 'accepted', status: 202, latencyMs: 1, atMs: n });
  return { model, webhook, flushes: () => flushes, close: () => { model.dispose(); store.close(); } };
}

afterEach(() => { vi.useRealTimers(); });

describe('console model pacing', () => {
  it('draws a single change within 33 ms, and keeps that pace for changes that come one at a time', () => {
    vi.useFakeTimers();
    const { webhook, flushes, close } = setup();
    for (let n = 0; n < 5; n++) {
      webhook(n);
      vi.advanceTimersByTime(33);
      expect(flushes()).toBe(n + 1);
    }
    close();
  });

  it('after a frame that folded a flood of changes, waits 100 ms for the next one, then goes back to 33 ms', () => {
    vi.useFakeTimers();
    const { model, webhook, flushes, close } = setup();
    for (let n = 0; n < 60; n++) webhook(n);
    vi.advanceTimersByTime(33);
    expect(flushes()).toBe(1);
    expect(model.getState().webhooks).toHaveLength(60);

    webhook(60);
    vi.advanceTimersByTime(99);
    expect(flushes()).toBe(1); // still folding the flood
    vi.advanceTimersByTime(1);
    expect(flushes()).toBe(2);

    webhook(61); // the last frame folded one change: the short delay again
    vi.advanceTimersByTime(33);
    expect(flushes()).toBe(3);
    close();
  });
});
