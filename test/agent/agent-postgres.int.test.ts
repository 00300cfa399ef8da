import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentStack } from '../../source/agent/agent-stack.js';
import { createApprovalQueue } from '../../source/agent/approval-queue.js';
import { defaultConfig } from '../../source/config/default-config.js';
import { resolveConfig } from '../../source/config/load.js';
import type { ApprovalRecord } from '../../source/store/approvals.js';
import type { RunBackend } from '../../source/store/async-domains.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { usePostgres } from '../helpers/cluster.js';
import { tempHome } from '../helpers/temp-home.js';

/** Agent runs and approval requests on a real PostgreSQL (issue #19): the gateway's agent stack on its backend. */
const postgres = usePostgres();

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** `nodes` stores on one new database (one per gateway of a cluster). */
async function stores(nodes = 1): Promise<PgStore[]> {
  const url = await postgres().freshDatabase();
  return Promise.all(Array.from({ length: nodes }, async () => {
    const store = await openPgStore(url);
    closers.push(() => store.close());
    return store;
  }));
}

function logLines() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
  return { logger, lines };
}

describe('agent runs on PostgreSQL', () => {
  let model: ScriptedModel | undefined;
  afterEach(async () => { await model?.close(); model = undefined; });

  async function stack(runs: RunBackend, store: PgStore, logger = pino({ level: 'silent' })) {
    model = await startScriptedModel([{ toolCalls: [{ name: 'lookup', args: { id: 'issue-7' } }] }, { text: 'Issue 7 is a duplicate.' }]);
    const file = defaultConfig();
    file.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1' };
    const made = createAgentStack({ config: resolveConfig(file, tempHome(), {}), runs, approvals: pgBackends(store).approvals, logger, policy: 'deny' });
    made.tools.register({ name: 'lookup', description: 'Look an issue up', inputSchema: { type: 'object' }, execute: async () => 'duplicate of issue 3' });
    return made;
  }

  it('records the run row, its tool call and its result in the order made, while the run never waits for the store', async () => {
    const [store] = await stores();
    const runs = pgBackends(store!).runs;
    expect(runs.writesInOrder).toBe(true);
    // The runs table is locked until the run has its result: its writes wait in the store, in order (a tool call's row needs its run's).
    const locker = await store!.pool.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE runs IN EXCLUSIVE MODE');
    const agent = await stack(runs, store!);
    const result = await agent.runAgent({ prompt: 'Triage issue 7', origin: 'webhook:gh:7' });
    expect(result).toMatchObject({ status: 'ok', output: 'Issue 7 is a duplicate.', steps: 2 });
    await locker.query('COMMIT');
    locker.release();
    const stored = await agent.runs.get(result.runId);
    expect(stored).toMatchObject({ id: result.runId, origin: 'webhook:gh:7', status: 'ok', output: 'Issue 7 is a duplicate.', steps: 2, provider: 'openai-compatible', model: 'scripted-1' });
    expect(stored!.toolCalls).toEqual([expect.objectContaining({ name: 'lookup', args: '{"id":"issue-7"}', result: 'duplicate of issue 3', isError: false })]);
  });

  it('on a store that does not keep the order itself: the run row, then its tool call, then its result, each after the one before', async () => {
    const [store] = await stores();
    const backend = pgBackends(store!).runs;
    // The run row's write is held until the run has its result: the later writes must wait behind it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const order: string[] = [];
    const runs: RunBackend = {
      ...backend,
      writesInOrder: false,
      started: async (run) => { order.push('started'); await held; await backend.started(run); order.push('started done'); },
      toolCall: async (...args) => { order.push('toolCall'); await backend.toolCall(...args); order.push('toolCall done'); },
      finished: async (result) => { order.push('finished'); await backend.finished(result); order.push('finished done'); },
    };
    const agent = await stack(runs, store!);

    const result = await agent.runAgent({ prompt: 'Triage issue 7', origin: 'webhook:gh:7' });
    expect(result).toMatchObject({ status: 'ok', output: 'Issue 7 is a duplicate.', steps: 2 });
    expect(order).toEqual(['started']);
    release();
    const stored = await agent.runs.get(result.runId);
    expect(order).toEqual(['started', 'started done', 'toolCall', 'toolCall done', 'finished', 'finished done']);
    expect(stored).toMatchObject({ id: result.runId, origin: 'webhook:gh:7', status: 'ok', output: 'Issue 7 is a duplicate.', steps: 2, provider: 'openai-compatible', model: 'scripted-1' });
    expect(stored!.toolCalls).toEqual([expect.objectContaining({ name: 'lookup', args: '{"id":"issue-7"}', result: 'duplicate of issue 3', isError: false })]);
    const { rows } = await store!.query('SELECT seq, name FROM run_tool_calls WHERE run_id = $1', [result.runId]);
    expect(rows).toEqual([{ seq: 0, name: 'lookup' }]);
  });

  it('logs a write the store refused, with the run, and records the rest', async () => {
    const [store] = await stores();
    const backend = pgBackends(store!).runs;
    const { logger, lines } = logLines();
    const agent = await stack({ ...backend, toolCall: async () => { throw new Error('connection reset'); } }, store!, logger);
    const result = await agent.runAgent({ prompt: 'Triage issue 7', origin: 'cli' });
    expect(result.status).toBe('ok');
    expect(await agent.runs.get(result.runId)).toMatchObject({ status: 'ok', toolCalls: [] });
    expect(lines.filter((line) => line.level === 50)).toEqual([expect.objectContaining({
      runId: result.runId, msg: `Recording the tool call 1 (lookup) of run ${result.runId} failed; the run goes on, its stored record lacks it`,
    })]);
  });
});

describe('approval requests on PostgreSQL', () => {
  const input = { origin: 'webhook:gh:7', tool: 'terminal', args: { command: 'rm -rf build', token: 'sekret-value' }, reason: 'matches: recursive delete' };

  function queue(store: PgStore, resolved: ApprovalRecord[] = []) {
    return createApprovalQueue({
      approvals: pgBackends(store).approvals, logger: pino({ level: 'silent' }), policy: 'interactive', timeoutMs: 60_000, pollIntervalMs: 50,
      events: { emit: ((name: string, data: ApprovalRecord) => { if (name === 'approval.resolved') resolved.push(data); }) as never },
    });
  }

  it('a request made on one node is decided on another; the waiting run goes on', async () => {
    const [a, b] = await stores(2);
    const resolvedOnA: ApprovalRecord[] = [];
    const nodeA = queue(a!, resolvedOnA);
    const nodeB = queue(b!);
    const outcome = nodeA.request(input);
    await expect.poll(() => nodeA.pending().length).toBe(1);
    const [pending] = nodeA.pending();
    expect(pending).toMatchObject({ origin: 'webhook:gh:7', tool: 'terminal', status: 'pending', reason: 'matches: recursive delete' });
    expect(pending!.argsPreview).not.toContain('sekret-value');
    // Node B keeps only its own requests in memory; the store has them all.
    expect(nodeB.pending()).toEqual([]);
    expect((await nodeB.pendingInStore()).map((record) => record.id)).toEqual([pending!.id]);
    expect(await nodeB.find(pending!.id.slice(0, 8))).toMatchObject({ id: pending!.id, status: 'pending' });

    expect(await nodeB.resolve(pending!.id, 'approved', { by: 'node-b' })).toBe(true);
    expect(await outcome).toEqual({ status: 'approved' });
    expect(nodeA.pending()).toEqual([]);
    expect(resolvedOnA).toEqual([expect.objectContaining({ id: pending!.id, status: 'approved', decidedBy: 'node-b' })]);
    expect(await nodeA.resolve(pending!.id, 'denied')).toBe(false);
    const { rows } = await a!.query('SELECT status, decided_by FROM approvals');
    expect(rows).toEqual([{ status: 'approved', decided_by: 'node-b' }]);
  });

  it('two nodes deciding at once: the store takes the first decision, and the run gets that one', async () => {
    const [a, b] = await stores(2);
    const nodeA = queue(a!);
    const nodeB = queue(b!);
    for (let round = 0; round < 5; round += 1) {
      const outcome = nodeA.request(input);
      await expect.poll(() => nodeA.pending().length).toBe(1);
      const id = nodeA.pending()[0]!.id;
      const [approved, denied] = await Promise.all([nodeB.resolve(id, 'approved', { by: 'node-b' }), nodeA.resolve(id, 'denied', { by: 'node-a' })]);
      expect(approved).not.toBe(denied);
      expect(await outcome).toEqual(approved ? { status: 'approved' } : { status: 'denied', by: 'node-a' });
      expect(await nodeB.find(id)).toMatchObject({ status: approved ? 'approved' : 'denied' });
    }
  });

  it('in cluster mode a node lists the requests other nodes wait for, as events, and a decision there lets the run go on', async () => {
    const [a, b] = await stores(2);
    const seenOnB: Array<{ name: string; id: string; status: string }> = [];
    const nodeA = queue(a!);
    const nodeB = createApprovalQueue({
      approvals: pgBackends(b!).approvals, logger: pino({ level: 'silent' }), policy: 'interactive', timeoutMs: 60_000, othersEveryMs: 1_000,
      events: { emit: ((name: string, data: ApprovalRecord) => { seenOnB.push({ name, id: data.id, status: data.status }); }) as never },
    });
    closers.push(() => nodeB.cancelAll('test over'));
    const outcome = nodeA.request(input);
    await expect.poll(() => nodeB.pending().length, { timeout: 5_000 }).toBe(1);
    const [listed] = nodeB.pending();
    expect(listed).toMatchObject({ origin: 'webhook:gh:7', tool: 'terminal', status: 'pending' });
    expect(seenOnB).toEqual([{ name: 'approval.requested', id: listed!.id, status: 'pending' }]);
    expect(await nodeB.resolve(listed!.id, 'approved', { by: 'console on b' })).toBe(true);
    expect(await outcome).toEqual({ status: 'approved' });
    expect(nodeB.pending()).toEqual([]);
    expect(seenOnB.at(-1)).toEqual({ name: 'approval.resolved', id: listed!.id, status: 'approved' });

    // Decided on the node that asked: the other node's list follows at its next look.
    const second = nodeA.request(input);
    await expect.poll(() => nodeB.pending().length, { timeout: 5_000 }).toBe(1);
    const id = nodeB.pending()[0]!.id;
    expect(await nodeA.resolve(id, 'denied', { by: 'node-a' })).toBe(true);
    expect(await second).toMatchObject({ status: 'denied' });
    await expect.poll(() => seenOnB.at(-1), { timeout: 5_000 }).toEqual({ name: 'approval.resolved', id, status: 'denied' });
    expect(nodeB.pending()).toEqual([]);
  });
  it('with notifications, a request reaches the other node and the decision wakes the run at once, not at the 5 s safety reads', async () => {
    const [a, b] = await stores(2);
    const silent = pino({ level: 'silent' });
    const heardOn: Record<string, { heard(id: string): Promise<void> }> = {};
    // The event channel stand-in: what one queue announces, the other hears (source/cluster/event-relay.ts carries it between processes).
    const clusterQueue = (store: PgStore, node: string, other: string, seen: Array<{ name: string; id: string; status: string }> = []) => createApprovalQueue({
      approvals: pgBackends(store, Date.now, node).approvals, logger: silent, policy: 'interactive', timeoutMs: 60_000, othersEveryMs: 5_000, pollIntervalMs: 5_000,
      announce: (id) => void heardOn[other]!.heard(id),
      events: { emit: ((name: string, data: ApprovalRecord) => { seen.push({ name, id: data.id, status: data.status }); }) as never },
    });
    const seenOnB: Array<{ name: string; id: string; status: string }> = [];
    const nodeA = clusterQueue(a!, 'node-a', 'node-b');
    const nodeB = clusterQueue(b!, 'node-b', 'node-a', seenOnB);
    heardOn['node-a'] = nodeA;
    heardOn['node-b'] = nodeB;
    closers.push(() => nodeA.cancelAll('test over'), () => nodeB.cancelAll('test over'));

    for (const decider of ['node-b', 'node-a'] as const) {
      const asked = Date.now();
      const outcome = nodeA.request(input);
      await expect.poll(() => nodeB.pending().length, { timeout: 5_000, interval: 10 }).toBe(1);
      expect(Date.now() - asked).toBeLessThan(1_000); // the 5 s read would have needed up to 5,000 ms
      const [listed] = nodeB.pending();
      expect(listed).toMatchObject({ tool: 'terminal', status: 'pending', node: 'node-a' });
      expect(seenOnB.at(-1)).toEqual({ name: 'approval.requested', id: listed!.id, status: 'pending' });

      const decided = Date.now();
      if (decider === 'node-b') {
        // Decided on B: the run waiting on A goes on at once.
        expect(await nodeB.resolve(listed!.id, 'approved', { by: 'console on b' })).toBe(true);
        expect(await outcome).toEqual({ status: 'approved' });
      } else {
        // Decided on A: B's list drops it at once.
        expect(await nodeA.resolve(listed!.id, 'denied', { by: 'node-a' })).toBe(true);
        expect(await outcome).toMatchObject({ status: 'denied' });
        await expect.poll(() => nodeB.pending().length, { timeout: 5_000, interval: 10 }).toBe(0);
        expect(seenOnB.at(-1)).toEqual({ name: 'approval.resolved', id: listed!.id, status: 'denied' });
      }
      expect(Date.now() - decided).toBeLessThan(1_000);
    }
  });
});
