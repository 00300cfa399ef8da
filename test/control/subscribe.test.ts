import { describe, expect, it, vi } from 'vitest';
import { connectControl, type ControlStatus } from '../../source/control/client.js';
import { createEventJournal } from '../../source/control/journal.js';
import type { ControlEvent, EventCursor } from '../../source/control/protocol.js';
import { createControlServer } from '../../source/control/server.js';
import { rawClient, startControlServer } from '../helpers/control.js';

describe('events.subscribe on the wire', () => {
  it('gives the snapshot at the current seq, then every event in order with no gap', async () => {
    const journal = createEventJournal({ capacity: 1000, epoch: 'epoch-a' });
    const state = { names: [] as number[] };
    journal.listen((event) => state.names.push(event.seq));
    const { socketPath } = await startControlServer({ journal, snapshot: () => ({ seen: [...state.names] }) });
    // Events keep arriving while the subscription is made: none may fall between the result and the stream.
    let pumping = true;
    const pump = (async () => {
      while (pumping) {
        journal.append('jobs.created', { n: journal.seq + 1 });
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe' });
    const reply = await raw.next();
    const result = reply.result as { mode: string; epoch: string; seq: number; snapshot: { seen: number[] } };
    expect(result).toMatchObject({ mode: 'snapshot', epoch: 'epoch-a' });
    expect(result.snapshot.seen).toEqual(Array.from({ length: result.seq }, (_, i) => i + 1));
    const events = [];
    for (let i = 0; i < 5; i += 1) events.push(await raw.next());
    pumping = false;
    await pump;
    expect(events.map((line) => line.method)).toEqual(Array(5).fill('event'));
    expect(events.map((line) => (line.params as ControlEvent).seq)).toEqual([1, 2, 3, 4, 5].map((i) => result.seq + i));
    expect(events[0]!.params).toEqual({ seq: result.seq + 1, type: 'jobs.created', data: { n: result.seq + 1 }, atMs: expect.any(Number) });
    expect(events[0]).not.toHaveProperty('id');
    let last = (events[4]!.params as ControlEvent).seq;
    while (last < journal.seq) last = ((await raw.next()).params as ControlEvent).seq; // what the pump added since

    raw.send({ jsonrpc: '2.0', id: 2, method: 'events.unsubscribe' });
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    journal.append('jobs.created', { name: 'e' });
    raw.send({ jsonrpc: '2.0', id: 3, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 3 }); // no event in between
  });

  it('resumes from the last seen seq with exactly the missed events', async () => {
    const journal = createEventJournal({ capacity: 10, epoch: 'epoch-a' });
    const { socketPath } = await startControlServer({ journal });
    for (let i = 1; i <= 5; i += 1) journal.append('runs.finished', { i });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { since: { epoch: 'epoch-a', seq: 2 } } });
    const reply = await raw.next();
    expect(reply.result).toMatchObject({ mode: 'resume', epoch: 'epoch-a', seq: 5 });
    expect((reply.result as { events: ControlEvent[] }).events.map((event) => [event.seq, event.data])).toEqual([[3, { i: 3 }], [4, { i: 4 }], [5, { i: 5 }]]);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'events.subscribe', params: { since: { epoch: 'epoch-a', seq: 5 } } });
    expect((await raw.next()).result).toEqual({ mode: 'resume', epoch: 'epoch-a', seq: 5, events: [] });
  });

  it('with a journal kept once listened to, keeps nothing until a client subscribes, then resumes from its snapshot', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'epoch-c', retain: 'once-listened' });
    const { socketPath } = await startControlServer({ journal, snapshot: () => 'whole state' });
    for (let i = 1; i <= 3; i += 1) journal.append('runs.finished', { i });
    expect(journal.since(1)).toBeUndefined(); // a started control server alone does not make the journal keep events
    const first = await rawClient(socketPath);
    first.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe' });
    expect((await first.next()).result).toEqual({ mode: 'snapshot', epoch: 'epoch-c', seq: 3, snapshot: 'whole state' });
    journal.append('runs.finished', { i: 4 });
    expect(((await first.next()).params as ControlEvent).seq).toBe(4);
    const second = await rawClient(socketPath);
    second.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { since: { epoch: 'epoch-c', seq: 3 } } });
    expect((await second.next()).result).toMatchObject({ mode: 'resume', seq: 4, events: [{ seq: 4, data: { i: 4 } }] });
    second.send({ jsonrpc: '2.0', id: 2, method: 'events.subscribe', params: { since: { epoch: 'epoch-c', seq: 2 } } });
    expect((await second.next()).result).toEqual({ mode: 'snapshot', epoch: 'epoch-c', seq: 4, snapshot: 'whole state' });
  });

  it('sends a fresh snapshot when the seq is older than the ring, from the future, or from another epoch', async () => {
    const journal = createEventJournal({ capacity: 3, epoch: 'epoch-b' });
    const { socketPath } = await startControlServer({ journal, snapshot: () => 'whole state' });
    for (let i = 1; i <= 6; i += 1) journal.append('runs.finished', { i });
    const raw = await rawClient(socketPath);
    const cursors: EventCursor[] = [{ epoch: 'epoch-b', seq: 2 }, { epoch: 'epoch-b', seq: 9 }, { epoch: 'epoch-a', seq: 5 }];
    for (const [index, since] of cursors.entries()) {
      raw.send({ jsonrpc: '2.0', id: index, method: 'events.subscribe', params: { since } });
      expect((await raw.next()).result).toEqual({ mode: 'snapshot', epoch: 'epoch-b', seq: 6, snapshot: 'whole state' });
    }
    raw.send({ jsonrpc: '2.0', id: 9, method: 'events.subscribe', params: { since: { epoch: 'epoch-b', seq: 3 } } });
    expect((await raw.next()).result).toMatchObject({ mode: 'resume', seq: 6 });
  });

  it('answers -32603 without subscribing when the snapshot fails', async () => {
    const journal = createEventJournal();
    const { socketPath, logger } = await startControlServer({
      journal,
      snapshot: () => {
        throw new Error('store closed');
      },
    });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe' });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32603, data: { code: 'internal' } } });
    expect(logger.entries).toContainEqual({ level: 'error', object: expect.objectContaining({ method: 'events.subscribe' }), message: 'Control method events.subscribe failed' });
    journal.append('x.happened', {});
    raw.send({ jsonrpc: '2.0', id: 2, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 2 });
  });
});

describe('connectControl subscriptions', () => {
  function recorder() {
    const seen: string[] = [];
    return {
      seen,
      handlers: {
        onSnapshot: (snapshot: unknown, cursor: EventCursor) => void seen.push(`snapshot ${JSON.stringify(snapshot)} @${cursor.seq}`),
        onEvent: (event: ControlEvent) => void seen.push(`event ${event.seq} ${event.type}`),
      },
    };
  }

  it('applies the subscribe result before the events that follow it in the same chunk', async () => {
    const journal = createEventJournal({ capacity: 10_000 });
    const { socketPath } = await startControlServer({ journal });
    let pumping = true;
    const pump = (async () => {
      while (pumping) {
        for (let i = 0; i < 5; i += 1) journal.append('x.happened', {});
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const client = await connectControl({ socketPath });
    const seqs: number[] = [];
    let base = -1;
    await client.subscribe({ onSnapshot: (_snapshot, cursor) => void (base = cursor.seq), onEvent: (event) => void seqs.push(event.seq) });
    await vi.waitFor(() => expect(seqs.length).toBeGreaterThan(20));
    pumping = false;
    await pump;
    await vi.waitFor(() => expect(seqs.at(-1)).toBe(journal.seq));
    expect(seqs).toEqual(Array.from({ length: journal.seq - base }, (_, i) => base + 1 + i));
    await client.close();
  });

  it('replays what it missed after the server restarts with the same journal', async () => {
    const journal = createEventJournal({ capacity: 100, epoch: 'epoch-a' });
    const { socketPath, server } = await startControlServer({ journal, snapshot: () => `at ${journal.seq}` });
    journal.append('one.happened', {});
    const statuses: Array<[ControlStatus, string | undefined]> = [];
    const client = await connectControl({ socketPath, reconnect: true, onStatus: (status, detail) => void statuses.push([status, detail]) });
    const { seen, handlers } = recorder();
    await client.subscribe(handlers);
    journal.append('two.happened', {});
    await vi.waitFor(() => expect(seen).toEqual(['snapshot "at 1" @1', 'event 2 two.happened']));

    await server.stop();
    await vi.waitFor(() => expect(statuses.map(([status]) => status)).toContain('retrying'));
    journal.append('three.happened', {}); // while nobody listens
    journal.append('four.happened', {});
    await server.start();
    await vi.waitFor(() => expect(seen.slice(2)).toEqual(['event 3 three.happened', 'event 4 four.happened']));
    journal.append('five.happened', {});
    await vi.waitFor(() => expect(seen.at(-1)).toBe('event 5 five.happened'));

    const kinds = statuses.map(([status]) => status);
    expect(kinds[0]).toBe('connected');
    expect(kinds[1]).toBe('disconnected');
    expect(kinds.slice(2, -1).every((status) => status === 'retrying')).toBe(true);
    expect(kinds.at(-1)).toBe('connected');
    await expect(client.call('jobs.list')).resolves.toBeTruthy();
    await client.close();
  });

  it('gets a fresh snapshot from a restarted gateway (new epoch) and when it fell too far behind', async () => {
    const first = createEventJournal({ capacity: 2, epoch: 'epoch-a' });
    const { socketPath, server, deps } = await startControlServer({ journal: first, snapshot: () => 'a' });
    const client = await connectControl({ socketPath, reconnect: true });
    const { seen, handlers } = recorder();
    await client.subscribe(handlers);
    first.append('a.happened', {});
    await vi.waitFor(() => expect(seen).toEqual(['snapshot "a" @0', 'event 1 a.happened']));

    // Too far behind: more events than the ring holds while the client was away.
    await server.stop();
    for (let i = 0; i < 5; i += 1) first.append('a.missed', {});
    await server.start();
    await vi.waitFor(() => expect(seen.at(-1)).toBe('snapshot "a" @6'));

    // A restarted gateway: a new journal, so a new epoch; its seq 6 is not the old seq 6.
    await server.stop();
    const second = createEventJournal({ epoch: 'epoch-b' });
    for (let i = 0; i < 8; i += 1) second.append('b.happened', {});
    const restarted = createControlServer({ ...deps, journal: second, snapshot: () => 'b' });
    await restarted.start();
    try {
      await vi.waitFor(() => expect(seen.at(-1)).toBe('snapshot "b" @8'));
      second.append('b.after', {});
      await vi.waitFor(() => expect(seen.at(-1)).toBe('event 9 b.after'));
      await client.close();
    } finally {
      await restarted.stop();
    }
  });

  it('allows one subscription per client, and unsubscribe stops the events', async () => {
    const { socketPath, journal } = await startControlServer();
    const client = await connectControl({ socketPath });
    const { seen, handlers } = recorder();
    const subscription = await client.subscribe(handlers);
    await expect(client.subscribe(handlers)).rejects.toMatchObject({ code: 'conflict' });
    await subscription.unsubscribe();
    journal.append('x.ignored', {});
    await client.call('jobs.list'); // a round trip after the append: an event would have arrived first
    expect(seen).toEqual(['snapshot {"seq":0} @0']);
    await client.close();
  });

  it('without reconnect, reports disconnected once and stays down', async () => {
    const { socketPath, server } = await startControlServer();
    const statuses: ControlStatus[] = [];
    const client = await connectControl({ socketPath, onStatus: (status) => void statuses.push(status) });
    await server.stop();
    await vi.waitFor(() => expect(statuses).toEqual(['connected', 'disconnected']));
    await server.start();
    await expect(client.call('jobs.list')).rejects.toMatchObject({ code: 'unavailable' });
    expect(statuses).toEqual(['connected', 'disconnected']);
  });
});
