import { describe, expect, it } from 'vitest';
import { connectControl } from '../../source/control/client.js';
import { createEventJournal } from '../../source/control/journal.js';
import type { ControlEvent, EventView } from '../../source/control/protocol.js';
import { rawClient, startControlServer } from '../helpers/control.js';

// A view that skips `noise.happened` and leaves `big` out of the rest.
const brief: EventView = (event) => {
  if (event.type === 'noise.happened') return undefined;
  const { big: _big, ...data } = event.data as Record<string, unknown>;
  return { ...event, data };
};

describe('events.subscribe with a view', () => {
  it('sends the view of each event, skips what it drops, keeps the seq, and serves other subscribers whole', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'e' });
    const { socketPath } = await startControlServer({ journal, views: { brief } });
    const viewer = await rawClient(socketPath);
    const whole = await rawClient(socketPath);
    viewer.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { view: 'brief' } });
    expect((await viewer.next()).result).toMatchObject({ mode: 'snapshot', seq: 0 });
    whole.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe' });
    expect((await whole.next()).result).toMatchObject({ mode: 'snapshot', seq: 0 });

    journal.append('run.finished', { id: 1, big: 'x'.repeat(1000) });
    journal.append('noise.happened', { id: 2 });
    journal.append('run.finished', { id: 3, big: 'y' });
    expect((await viewer.next()).params).toEqual({ seq: 1, type: 'run.finished', data: { id: 1 }, atMs: expect.any(Number) });
    expect((await viewer.next()).params).toMatchObject({ seq: 3, data: { id: 3 } });
    const all = [await whole.next(), await whole.next(), await whole.next()].map((line) => line.params as ControlEvent);
    expect(all.map((event) => [event.seq, event.data])).toEqual([[1, { id: 1, big: 'x'.repeat(1000) }], [2, { id: 2 }], [3, { id: 3, big: 'y' }]]);
  });

  it('applies the view to a resume, and sends an unknown view the whole stream', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'e' });
    const { socketPath } = await startControlServer({ journal, views: { brief } });
    journal.listen(() => {}); // kept from here on
    journal.append('run.finished', { id: 1, big: 'b' });
    journal.append('noise.happened', { id: 2 });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { since: { epoch: 'e', seq: 0 }, view: 'brief' } });
    const resumed = (await raw.next()).result as { mode: string; seq: number; events: ControlEvent[] };
    expect(resumed).toMatchObject({ mode: 'resume', seq: 2 });
    expect(resumed.events.map((event) => [event.seq, event.data])).toEqual([[1, { id: 1 }]]);

    raw.send({ jsonrpc: '2.0', id: 2, method: 'events.subscribe', params: { since: { epoch: 'e', seq: 0 }, view: 'newer-than-this-gateway' } });
    expect(((await raw.next()).result as { events: ControlEvent[] }).events.map((event) => event.data)).toEqual([{ id: 1, big: 'b' }, { id: 2 }]);
    raw.send({ jsonrpc: '2.0', id: 3, method: 'events.subscribe', params: { view: 7 } });
    expect(await raw.next()).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('a view that throws skips that event for its subscribers and is logged; the gateway goes on', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'e' });
    const { socketPath, logger } = await startControlServer({ journal, views: { broken: (event) => { if (event.type === 'bad.happened') throw new Error('bug'); return event; } } });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { view: 'broken' } });
    await raw.next();
    journal.append('bad.happened', {});
    journal.append('good.happened', {});
    expect((await raw.next()).params).toMatchObject({ seq: 2, type: 'good.happened' });
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'error', object: expect.objectContaining({ type: 'bad.happened' }) }));
  });

  it('connectControl asks for the view again when it resubscribes after a reconnect', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'e' });
    const first = await startControlServer({ journal, views: { brief } });
    const client = await connectControl({ socketPath: first.socketPath, reconnect: true });
    const seen: unknown[] = [];
    await client.subscribe({ onSnapshot: () => {}, onEvent: (event) => void seen.push(event.data) }, { view: 'brief' });
    journal.append('run.finished', { id: 1, big: 'b' });
    await expect.poll(() => seen.length).toBe(1);
    await first.server.stop();
    journal.append('run.finished', { id: 2, big: 'b' }); // missed while down: replayed through the view
    const { createControlServer } = await import('../../source/control/server.js');
    const again = createControlServer({ ...first.deps, views: { brief } });
    await again.start();
    try {
      await expect.poll(() => seen.length, { timeout: 5_000 }).toBe(2);
      journal.append('run.finished', { id: 3, big: 'b' });
      await expect.poll(() => seen.length).toBe(3);
      expect(seen).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    } finally {
      await client.close();
      await again.stop();
    }
  });
});
