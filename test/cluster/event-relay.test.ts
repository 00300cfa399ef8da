import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createEventRelay, WATCH_RENEW_MS } from '../../source/cluster/event-relay.js';
import type { GatewayEvent } from '../../source/operations/state.js';
import type { WebhookRow } from '../../source/operations/webhook-rows.js';
import type { NodeView } from '../../source/store/pg/nodes.js';

/** The relay between nodes over a stand-in channel: what goes out, what comes in, and runs a dead node left. */
function relayOn(nodeId: string, now = () => 10_000, ownRows: () => WebhookRow[] = () => []) {
  const sent: string[] = [];
  const recorded: GatewayEvent[] = [];
  const heard: string[] = [];
  let jobsHeard = 0;
  let deliver: (payload: string) => void = () => {};
  const relay = createEventRelay({
    nodeId, now, logger: pino({ level: 'silent' }), record: (event) => recorded.push(event), approvalHeard: (id) => heard.push(id),
    jobsHeard: () => { jobsHeard += 1; }, ownRows,
    open: async (onPayload) => {
      deliver = onPayload;
      return { publish: async (payload) => { sent.push(payload); }, close: async () => {} };
    },
  });
  const receive = (payload: string) => deliver(payload);
  /** Started, with node-b watching (what it was shared then left out of `sent`). */
  const watchedStart = async () => {
    await relay.start();
    receive(JSON.stringify({ node: 'node-b', events: [], watching: true }));
    sent.length = 0;
  };
  return { relay, sent, recorded, heard, jobsHeard: () => jobsHeard, receive, watchedStart };
}

const node = (id: string, view: Partial<NodeView>): NodeView => ({
  id, host: 'h', pid: 1, version: 'v', configHash: 'c', runsInFlight: 1, webhookUrl: null, startedAtMs: 1_000, heartbeatAtMs: 9_000, state: 'up', late: false, takenOverBy: null, ...view,
});

const started = (runId: string, atMs = 5_000) => ({ type: 'run.started', data: { runId, origin: 'webhook:gh:1', prompt: '', atMs } });

describe('the event relay between nodes', () => {
  it('sends run events without prompt, output or tool calls, and approval notices at once', async () => {
    const { relay, sent, watchedStart } = relayOn('node-a');
    await watchedStart();
    relay.send({ type: 'run.started', data: { runId: 'r1', origin: 'console', prompt: 'a long secret prompt', atMs: 1, node: 'node-a' } });
    relay.send({ type: 'run.finished', data: { runId: 'r1', origin: 'console', status: 'ok', output: 'the whole answer', steps: 1, toolCalls: [{ id: 'c', name: 't', args: {}, result: 'r', isError: false, startedAtMs: 1, finishedAtMs: 2 }], usage: { inputTokens: 1, outputTokens: 1 }, startedAtMs: 1, finishedAtMs: 2, node: 'node-a' } });
    relay.announceApproval('approval-1');
    expect(sent).toEqual([JSON.stringify({ node: 'node-a', events: [], approval: 'approval-1' })]); // not held for the 50 ms batch
    await relay.stop(); // flushes the batch
    const events = (JSON.parse(sent[1]!) as { events: GatewayEvent[] }).events;
    expect(events.map((event) => event.type)).toEqual(['run.started', 'run.finished']);
    expect(JSON.stringify(events)).not.toMatch(/secret prompt|whole answer|"name":"t"/);
  });

  it('says a job changed once per batch, with the events or alone, and hands other nodes\' job notices on', async () => {
    const { relay, sent, jobsHeard, receive, watchedStart } = relayOn('node-a');
    await watchedStart();
    for (let n = 0; n < 20; n += 1) relay.announceJobs(); // twenty jobs made in one go
    relay.send(started('r1') as GatewayEvent);
    await new Promise((resolve) => setTimeout(resolve, 120)); // the 50 ms batch
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!)).toMatchObject({ node: 'node-a', jobs: true, events: [expect.objectContaining({ type: 'run.started' })] });
    relay.announceJobs();
    await relay.stop();
    expect(JSON.parse(sent[1]!)).toEqual({ node: 'node-a', events: [], jobs: true });
    receive(JSON.stringify({ node: 'node-a', events: [], jobs: true })); // its own: nothing to read
    receive(JSON.stringify({ node: 'node-b', events: [] }));
    expect(jobsHeard()).toBe(0);
    receive(JSON.stringify({ node: 'node-b', events: [], jobs: true }));
    expect(jobsHeard()).toBe(1);
  });

  it('cuts a failed run\'s long error, so its end fits in a notification', async () => {
    const { relay, sent, watchedStart } = relayOn('node-a');
    await watchedStart();
    relay.send({ type: 'run.finished', data: { runId: 'r1', origin: 'job:x', status: 'failed', output: '', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, error: 'e'.repeat(10_000), startedAtMs: 1, finishedAtMs: 2, node: 'node-a' } });
    await relay.stop();
    const [event] = (JSON.parse(sent[0]!) as { events: Array<{ data: { error: string } }> }).events;
    expect(event!.data.error).toHaveLength(500);
  });

  it('records other nodes\' runs with their node, hands approval notices on, and skips its own', async () => {
    const { relay, recorded, heard, receive } = relayOn('node-a');
    await relay.start();
    receive(JSON.stringify({ node: 'node-a', approval: 'mine', events: [started('own')] }));
    receive(JSON.stringify({ node: 'node-b', approval: 'theirs' }));
    receive(JSON.stringify({ node: 'node-b', events: [started('r1'), { type: 'gateway.started', data: { atMs: 1, pid: 2 } }] }));
    expect(heard).toEqual(['theirs']);
    expect(recorded).toEqual([{ type: 'run.started', data: expect.objectContaining({ runId: 'r1', node: 'node-b' }) }]);
    expect(relay.hasRemoteRuns()).toBe(true);
    receive(JSON.stringify({ node: 'node-b', events: [{ type: 'run.finished', data: { runId: 'r1', origin: 'webhook:gh:1', status: 'ok', output: '', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs: 5_000, finishedAtMs: 6_000 } }] }));
    expect(relay.hasRemoteRuns()).toBe(false);
    await relay.stop();
  });

  it('sends the delivery ends that change the failed count (failures, retries), watched or not, not first sends that delivered', async () => {
    const { relay, sent } = relayOn('node-a');
    await relay.start();
    sent.length = 0; // its `ask`
    const subject = { kind: 'webhook', route: 'chat', deliveryId: 'd-1', event: 'push' } as const;
    relay.send({ type: 'delivery.finished', data: { target: 'telegram:42', subject, result: { ok: true, detail: 'first', recordId: 'r1' }, node: 'node-a' } as never });
    relay.send({ type: 'delivery.finished', data: { target: 'telegram:42', subject, result: { ok: false, reason: 'failed', recordId: 'r2' }, node: 'node-a' } as never });
    relay.send({ type: 'delivery.finished', data: { target: 'telegram:42', subject, result: { ok: true, detail: 'retried', recordId: 'r2' }, retry: true, node: 'node-a' } as never });
    await relay.stop();
    const events = (JSON.parse(sent[0]!) as { events: Array<{ data: { result: { recordId: string } } }> }).events;
    expect(events.map((event) => event.data.result.recordId)).toEqual(['r2', 'r2']);
  });

  it('keeps the node an event names (a retried delivery\'s end names the node that ran it), else the sender', async () => {
    const { relay, recorded, receive } = relayOn('node-a');
    await relay.start();
    const completed = (node?: string) => ({ type: 'webhook.completed', data: { seq: 1, route: 'chat', event: 'push', deliveryId: 'd-1', state: 'delivered', runId: null, runStatus: null, delivery: { ok: true, detail: 'x' }, atMs: 1, ...(node ? { node } : {}) } });
    receive(JSON.stringify({ node: 'node-b', events: [completed('node-c'), completed()] }));
    expect(recorded.map((event) => (event.data as { node?: string }).node)).toEqual(['node-c', 'node-b']);
    await relay.stop();
  });

  it('ends the runs of a node that is down, restarted, or whose heartbeat counts no run since they began', async () => {
    const { relay, recorded, receive } = relayOn('node-a');
    await relay.start();
    receive(JSON.stringify({ node: 'node-b', events: [started('on-b')] }));
    receive(JSON.stringify({ node: 'node-c', events: [started('on-c')] }));
    receive(JSON.stringify({ node: 'node-d', events: [started('on-d')] }));
    receive(JSON.stringify({ node: 'node-e', events: [started('on-e')] }));
    receive(JSON.stringify({ node: 'node-f', events: [started('on-f')] }));
    recorded.length = 0;
    relay.sweep([
      node('node-b', { state: 'down' }),
      node('node-c', { startedAtMs: 6_000 }), // restarted after its run began
      node('node-d', { runsInFlight: 0, heartbeatAtMs: 7_000 }), // its end was missed
      node('node-e', { runsInFlight: 0, heartbeatAtMs: 5_500 }), // a beat too close to the start to tell
      node('node-f', {}),
    ]);
    const ended = recorded.map((event) => event.type === 'run.finished' ? [event.data.runId, event.data.node, event.data.error] : []);
    expect(ended).toEqual([
      ['on-b', 'node-b', 'node node-b is down'],
      ['on-c', 'node-c', 'node node-c restarted'],
      ['on-d', 'node-d', 'node node-d has no run in flight'],
    ]);
    relay.sweep([]); // a node the table no longer lists
    expect(recorded.slice(3).map((event) => event.type === 'run.finished' && event.data.runId)).toEqual(['on-e', 'on-f']);
    expect(relay.hasRemoteRuns()).toBe(false);
    await relay.stop();
  });

  it('relays webhook and run events only while another node watches: not before, not after it leaves or falls silent', async () => {
    let clock = 10_000;
    const { relay, sent, receive } = relayOn('node-a', () => clock);
    await relay.start();
    expect(sent.map((payload) => JSON.parse(payload))).toEqual([{ node: 'node-a', events: [], ask: true }]);
    sent.length = 0;
    const flushed = async () => { await new Promise((resolve) => setTimeout(resolve, 70)); return sent.splice(0).map((payload) => JSON.parse(payload) as { events: GatewayEvent[]; to?: string }); };
    relay.send(started('unwatched') as GatewayEvent);
    expect(await flushed()).toEqual([]);
    receive(JSON.stringify({ node: 'node-b', events: [], watching: true }));
    sent.length = 0; // what it shared with node-b
    relay.send(started('watched') as GatewayEvent);
    expect((await flushed()).flatMap((message) => message.events.map((event) => (event.data as { runId: string }).runId))).toEqual(['watched']);
    clock += 14_000; // within the lease of node-b's last word (three renewals)
    relay.send(started('still') as GatewayEvent);
    expect(await flushed()).toHaveLength(1);
    clock += 2_000; // node-b fell silent (it died, or its channel dropped)
    relay.send(started('silent') as GatewayEvent);
    expect(await flushed()).toEqual([]);
    receive(JSON.stringify({ node: 'node-b', events: [], watching: true }));
    receive(JSON.stringify({ node: 'node-b', events: [], watching: false }));
    sent.length = 0;
    relay.send(started('left') as GatewayEvent);
    expect(await flushed()).toEqual([]);
    await relay.stop();
  });

  it('shares its recent rows and runs in flight with a node that begins watching, with that node only, once per lease', async () => {
    const row = (n: number): WebhookRow => ({ key: `k${n}`, atMs: n, route: 'gh', event: 'push', deliveryId: `d-${n}`, outcome: 'accepted', status: 202, runState: 'delivered', runStatus: 'ok', delivery: { ok: true, detail: 'log' }, node: 'node-a', runNode: 'node-a' });
    const rows = Array.from({ length: 120 }, (_, n) => row(n)); // more than one notification holds
    const { relay, sent, receive } = relayOn('node-a', () => 10_000, () => rows);
    await relay.start();
    relay.send(started('running') as GatewayEvent);
    relay.send(started('done') as GatewayEvent);
    relay.send({ type: 'run.finished', data: { runId: 'done', origin: 'webhook:gh:1', status: 'ok', output: '', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs: 5_000, finishedAtMs: 6_000 } });
    sent.length = 0;
    receive(JSON.stringify({ node: 'node-b', events: [], watching: true }));
    const messages = sent.splice(0).map((payload) => { expect(payload.length).toBeLessThan(8_000); return JSON.parse(payload) as { to: string; events: GatewayEvent[]; runs?: unknown[] }; });
    expect(messages.length).toBeGreaterThan(2);
    expect(messages.every((message) => message.to === 'node-b')).toBe(true);
    const shared = messages.flatMap((message) => message.events.flatMap((event) => (event.type === 'webhook.rowsShared' ? event.data.rows : [])));
    expect(shared).toEqual(rows);
    expect(messages.at(-1)!.runs).toEqual([['running', 'webhook:gh:1', 5_000]]);
    receive(JSON.stringify({ node: 'node-b', events: [], watching: true })); // a renewal
    expect(sent).toEqual([]);
    await relay.stop();
  });

  it('says when it has subscribers, renews while it does, says when they left, and answers a starting node at once', async () => {
    vi.useFakeTimers();
    try {
      const { relay, sent, receive } = relayOn('node-a');
      await relay.start();
      sent.length = 0;
      const said = () => sent.splice(0).map((payload) => JSON.parse(payload) as object);
      receive(JSON.stringify({ node: 'node-c', events: [], ask: true }));
      expect(said()).toEqual([]); // nobody watches here
      relay.watch(1);
      relay.watch(2);
      expect(said()).toEqual([{ node: 'node-a', events: [], watching: true }]);
      vi.advanceTimersByTime(WATCH_RENEW_MS);
      expect(said()).toEqual([{ node: 'node-a', events: [], watching: true }]);
      receive(JSON.stringify({ node: 'node-c', events: [], ask: true }));
      expect(said()).toEqual([{ node: 'node-a', events: [], watching: true }]);
      relay.watch(0);
      expect(said()).toEqual([{ node: 'node-a', events: [], watching: false }]);
      vi.advanceTimersByTime(3 * WATCH_RENEW_MS);
      expect(said()).toEqual([]);
      await relay.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('records rows another node shared with keys of its own, skips what was shared with another node, and takes a node\'s list of runs as the whole of them', async () => {
    const { relay, recorded, receive } = relayOn('node-a');
    await relay.start();
    const shared = (to: string) => JSON.stringify({ node: 'node-b', to, events: [{ type: 'webhook.rowsShared', data: { node: 'node-b', rows: [{ key: 'w1', atMs: 1, route: 'gh', event: 'push', deliveryId: 'd', outcome: 'accepted', status: 202, node: 'node-b' }] } }] });
    receive(shared('node-c'));
    expect(recorded).toEqual([]);
    receive(shared('node-a'));
    expect(recorded).toEqual([{ type: 'webhook.rowsShared', data: { node: 'node-b', rows: [expect.objectContaining({ key: 'node-b/w1', deliveryId: 'd' })] } }]);
    recorded.length = 0;
    receive(JSON.stringify({ node: 'node-b', events: [started('ended-unseen'), started('goes-on')] }));
    receive(JSON.stringify({ node: 'node-c', events: [started('on-c')] }));
    recorded.length = 0;
    receive(JSON.stringify({ node: 'node-b', to: 'node-a', events: [], runs: [['goes-on', 'webhook:gh:1', 5_000], ['new', 'job:x', 7_000]] }));
    expect(recorded.map((event) => [event.type, (event.data as { runId: string }).runId, (event.data as { node: string }).node])).toEqual([
      ['run.finished', 'ended-unseen', 'node-b'],
      ['run.started', 'new', 'node-b'],
    ]);
    await relay.stop();
  });
});
