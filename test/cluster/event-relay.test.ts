import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createEventRelay } from '../../source/cluster/event-relay.js';
import type { GatewayEvent } from '../../source/operations/state.js';
import type { NodeView } from '../../source/store/pg/nodes.js';

/** The relay between nodes over a stand-in channel: what goes out, what comes in, and runs a dead node left. */
function relayOn(nodeId: string, now = () => 10_000) {
  const sent: string[] = [];
  const recorded: GatewayEvent[] = [];
  const heard: string[] = [];
  let jobsHeard = 0;
  let deliver: (payload: string) => void = () => {};
  const relay = createEventRelay({
    nodeId, now, logger: pino({ level: 'silent' }), record: (event) => recorded.push(event), approvalHeard: (id) => heard.push(id),
    jobsHeard: () => { jobsHeard += 1; },
    open: async (onPayload) => {
      deliver = onPayload;
      return { publish: async (payload) => { sent.push(payload); }, close: async () => {} };
    },
  });
  return { relay, sent, recorded, heard, jobsHeard: () => jobsHeard, receive: (payload: string) => deliver(payload) };
}

const node = (id: string, view: Partial<NodeView>): NodeView => ({
  id, host: 'h', pid: 1, version: 'v', configHash: 'c', runsInFlight: 1, webhookUrl: null, startedAtMs: 1_000, heartbeatAtMs: 9_000, state: 'up', late: false, takenOverBy: null, ...view,
});

const started = (runId: string, atMs = 5_000) => ({ type: 'run.started', data: { runId, origin: 'webhook:gh:1', prompt: '', atMs } });

describe('the event relay between nodes', () => {
  it('sends run events without prompt, output or tool calls, and approval notices at once', async () => {
    const { relay, sent } = relayOn('node-a');
    await relay.start();
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
    const { relay, sent, jobsHeard, receive } = relayOn('node-a');
    await relay.start();
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
    const { relay, sent } = relayOn('node-a');
    await relay.start();
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

  it('sends the delivery ends that change the failed count (failures, retries), not first sends that delivered', async () => {
    const { relay, sent } = relayOn('node-a');
    await relay.start();
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
});
