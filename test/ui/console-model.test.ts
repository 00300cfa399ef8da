import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../source/gateway/gateway.js';
import { defaultConfig } from '../../source/config/default-config.js';
import { resolveConfig } from '../../source/config/load.js';
import { createEventJournal } from '../../source/control/journal.js';
import { gatewayEventNames } from '../../source/gateway/events.js';
import { initialState } from '../../source/operations/gateway-state.js';
import type { GatewayLink } from '../../source/operations/link.js';
import type { GatewayEvent } from '../../source/operations/state.js';
import { openStore } from '../../source/store/database.js';
import { pino } from 'pino';
import { createConsoleModel } from '../../source/ui/console-model.js';
import { tempHome } from '../helpers/temp-home.js';

/** Render pacing of the console model over a link to a real (not started) gateway core, on a fake clock. */
async function setup() {
  const home = tempHome();
  const store = openStore(home.stateDb);
  const gateway = createGateway({ config: resolveConfig(defaultConfig(), home, {}), store, logger: pino({ level: 'silent' }), mode: 'console' });
  const initial = await initialState(gateway);
  const journal = createEventJournal();
  for (const type of gatewayEventNames) gateway.events.on(type, ((data: unknown) => journal.append(type, data)) as never);
  const link: GatewayLink = {
    where: 'in-process', remote: false, operations: undefined as never,
    hello: () => ({ pid: process.pid, home: home.root, version: 'test', mode: 'console', startedAtMs: null, webhookUrl: null, socketPath: home.controlSocket, tcpUrl: null }),
    subscribe(handlers) {
      handlers.onSnapshot(initial);
      return journal.listen((event) => handlers.onEvent({ type: event.type, data: event.data } as GatewayEvent));
    },
    onStatus: () => () => {},
    close: async () => {},
  };
  const model = createConsoleModel({ link, flushMs: 33, burstFlushMs: 100 });
  let flushes = 0;
  model.subscribe(() => { flushes += 1; });
  const webhook = (n: number) => gateway.events.emit('webhook.received', { route: 'r', event: 'push', deliveryId: `d-${n}`, outcome: 'accepted', status: 202, latencyMs: 1, atMs: n });
  return { model, webhook, flushes: () => flushes, close: () => { model.dispose(); store.close(); } };
}

afterEach(() => { vi.useRealTimers(); });

describe('console model pacing', () => {
  it('draws a single change within 33 ms, and keeps that pace for changes that come one at a time', async () => {
    vi.useFakeTimers();
    const { webhook, flushes, close } = await setup();
    for (let n = 0; n < 5; n++) {
      webhook(n);
      vi.advanceTimersByTime(33);
      expect(flushes()).toBe(n + 1);
    }
    close();
  });

  it('after a frame that folded a flood of changes, waits 100 ms for the next one, then goes back to 33 ms', async () => {
    vi.useFakeTimers();
    const { model, webhook, flushes, close } = await setup();
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
