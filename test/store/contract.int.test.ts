import { afterEach, describe, expect, it } from 'vitest';
import { sqliteBackends, type StoreBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { pgMigrations } from '../../source/store/pg/migrations.js';
import type { NewDelivery } from '../../source/store/webhook-deliveries.js';
import { usePostgres } from '../helpers/cluster.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The store contract (issue #19): the same operations give the same answers on SQLite and on
 * PostgreSQL. Each test gets an empty store: a new SQLite file, or a new PostgreSQL database on
 * one server started for this file (a real PostgreSQL from node_modules).
 */
const postgres = usePostgres();

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

/** `nodes` stores on one new database: one per gateway of a cluster (SQLite: processes sharing one file). */
const backends: Record<string, (nodes?: number) => Promise<StoreBackends[]>> = {
  sqlite: async (nodes = 1) => {
    const file = tempHome().stateDb;
    return Array.from({ length: nodes }, () => {
      const store = openStore(file);
      closers.push(() => store.close());
      return sqliteBackends(store);
    });
  },
  postgres: async (nodes = 1) => {
    const url = await postgres().freshDatabase();
    return Promise.all(Array.from({ length: nodes }, async () => {
      const store = await openPgStore(url);
      closers.push(() => store.close());
      return pgBackends(store);
    }));
  },
};

const delivery = (deliveryId: string, overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  route: 'gh', deliveryId, event: 'pull_request', headers: { 'x-github-event': 'pull_request' }, body: Buffer.from(`{"id":"${deliveryId}"}`),
  prompt: `Review ${deliveryId}`, skills: ['review'], target: 'log', targetExtra: { chat: 'ops' }, receivedAtMs: 1_000, ...overrides,
});
const WINDOW = 60_000;

describe.each(Object.keys(backends))('store contract on %s', (name) => {
  const open = async () => (await backends[name]!())[0]!;

  it('accepts a delivery id once per route within the window, again after it, and keeps every field', async () => {
    const { deliveries } = await open();
    const first = await deliveries.accept(delivery('d-1'), WINDOW);
    expect(first.kind).toBe('accepted');
    expect(await deliveries.accept(delivery('d-1', { receivedAtMs: 2_000 }), WINDOW)).toEqual({ kind: 'duplicate' });
    expect((await deliveries.accept(delivery('d-1', { route: 'other' }), WINDOW)).kind).toBe('accepted');
    expect((await deliveries.accept(delivery('d-1', { receivedAtMs: 1_000 + WINDOW + 1 }), WINDOW)).kind).toBe('accepted');
    // Without a window (a generated id), never a duplicate.
    expect((await deliveries.accept(delivery('d-1'))).kind).toBe('accepted');
    const record = await deliveries.get((first as { seq: number }).seq);
    expect(record).toMatchObject({
      route: 'gh', deliveryId: 'd-1', event: 'pull_request', headers: { 'x-github-event': 'pull_request' }, prompt: 'Review d-1', skills: ['review'],
      target: 'log', targetExtra: { chat: 'ops' }, state: 'queued', replayOf: null, runId: null, receivedAtMs: 1_000, startedAtMs: null,
    });
    expect((await deliveries.body(record!.seq)).toString()).toBe('{"id":"d-1"}');
    expect((await deliveries.findByDeliveryId('d-1'))!.seq).toBeGreaterThan(record!.seq);
  });

  it('accepts one of fifty concurrent requests with one delivery id sent to three nodes, round after round', async () => {
    const nodes = await backends[name]!(3);
    // Every node's connections open first, so the requests of a round really overlap.
    await Promise.all(nodes.flatMap((node, index) => Array.from({ length: 10 }, (_unused, at) => node.deliveries.accept(delivery(`warm-${index}-${at}`), WINDOW))));
    for (let round = 0; round < 5; round += 1) {
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_unused, index) => nodes[index % 3]!.deliveries.accept(delivery(`d-race-${round}`), WINDOW)));
      expect(outcomes.filter((outcome) => outcome.kind === 'accepted'), `round ${round}`).toHaveLength(1);
    }
    expect((await nodes[0]!.deliveries.counts()).queued).toBe(30 + 5);
  });

  it('is a FIFO queue: claim, record the run, finish; requeue and recover after a crash', async () => {
    const { deliveries } = await open();
    for (const id of ['q-1', 'q-2', 'q-3']) await deliveries.accept(delivery(id), WINDOW);
    const first = (await deliveries.claimQueued(5_000, 1))[0];
    expect(first).toMatchObject({ deliveryId: 'q-1', state: 'running', startedAtMs: 5_000 });
    await deliveries.recordRun(first!, { runId: 'run-1', status: 'ok', output: 'LGTM' });
    await deliveries.finish(first!, 'delivered', 'written to the log', 6_000);
    expect(await deliveries.get(first!.seq)).toMatchObject({ state: 'delivered', runId: 'run-1', runStatus: 'ok', output: 'LGTM', deliveryDetail: 'written to the log', finishedAtMs: 6_000 });
    // The node that ran it (consoles name it after a restart too); SQLite has one node and no such column.
    const { node } = (await deliveries.get(first!.seq))!;
    if (name === 'postgres') expect(node).toMatch(/\S/);
    else expect(node).toBeUndefined();

    const second = (await deliveries.claimQueued(7_000, 1))[0];
    expect(second!.deliveryId).toBe('q-2');
    await deliveries.requeue(second!);
    const again = (await deliveries.claimQueued(8_000, 1))[0];
    expect(again!.deliveryId).toBe('q-2');
    // A crash: q-2 ran (its run is recorded) but was not delivered; q-3 was claimed and never ran.
    await deliveries.recordRun(again!, { runId: 'run-2', status: 'ok', output: 'done' });
    const third = (await deliveries.claimQueued(9_000, 1))[0];
    expect(third!.deliveryId).toBe('q-3');
    const recovered = await deliveries.recover();
    expect(recovered.requeued).toBe(1);
    expect(recovered.undelivered.map((record) => record.deliveryId)).toEqual(['q-2']);
    const last = (await deliveries.claimQueued(10_000, 1))[0];
    expect(last!.deliveryId).toBe('q-3');
    expect(await deliveries.claimQueued(11_000, 1)).toEqual([]);
    // A run result not recorded before its delivery (a repeatable target) goes with the final state.
    await deliveries.finish(last!, 'delivered', 'written to the log', 12_000, { runId: 'run-3', status: 'ok', output: 'once' });
    expect(await deliveries.get(last!.seq)).toMatchObject({ state: 'delivered', runId: 'run-3', runStatus: 'ok', output: 'once', deliveryDetail: 'written to the log' });
    expect(await deliveries.counts()).toEqual({ queued: 0, running: 1, delivered: 2, silent: 0, failed: 0, delivery_failed: 0 });
  });

  it('claims several of the oldest queued deliveries in one call, oldest first, as far as there are', async () => {
    const { deliveries } = await open();
    for (const id of ['b-1', 'b-2', 'b-3', 'b-4', 'b-5']) await deliveries.accept(delivery(id), WINDOW);
    const batch = await deliveries.claimQueued(3_000, 3);
    expect(batch.map((record) => [record.deliveryId, record.state, record.startedAtMs])).toEqual([['b-1', 'running', 3_000], ['b-2', 'running', 3_000], ['b-3', 'running', 3_000]]);
    expect((await deliveries.claimQueued(4_000, 4)).map((record) => record.deliveryId)).toEqual(['b-4', 'b-5']);
    expect(await deliveries.counts()).toMatchObject({ queued: 0, running: 5 });
  });

  it('hands each queued delivery to one claimer when three nodes claim at once', async () => {
    const nodes = await backends[name]!(3);
    for (let index = 0; index < 20; index += 1) await nodes[0]!.deliveries.accept(delivery(`c-${index}`), WINDOW);
    // Claims of one row and of several at once, from every node at the same time.
    const claimed = await Promise.all(Array.from({ length: 12 }, (_unused, index) => nodes[index % 3]!.deliveries.claimQueued(index, 1 + (index % 4))));
    const ids = claimed.flat().map((record) => record.deliveryId);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    for (const batch of claimed) expect(batch.map((record) => record.seq)).toEqual(batch.map((record) => record.seq).sort((a, b) => a - b));
  });

  it('replays a delivery under a numbered id of its own, with the original body', async () => {
    const { deliveries } = await open();
    const accepted = await deliveries.accept(delivery('r-1'), WINDOW);
    const original = (await deliveries.get((accepted as { seq: number }).seq))!;
    const replays = await Promise.all([deliveries.enqueueReplay(original, 2_000), deliveries.enqueueReplay(original, 2_000)]);
    expect(replays.map((replay) => replay.deliveryId).sort()).toEqual(['r-1.replay-1', 'r-1.replay-2']);
    expect(replays[0]).toMatchObject({ replayOf: 'r-1', state: 'queued', receivedAtMs: 2_000, prompt: 'Review r-1' });
    expect((await deliveries.body(replays[0]!.seq)).toString()).toBe('{"id":"r-1"}');
  });

  it('lists the recent deliveries, newest first, for all routes or one', async () => {
    const { deliveries } = await open();
    await deliveries.accept(delivery('a-1'), WINDOW);
    await deliveries.accept(delivery('b-1', { route: 'gl' }), WINDOW);
    await deliveries.accept(delivery('a-2'), WINDOW);
    expect((await deliveries.recent()).map((record) => record.deliveryId)).toEqual(['a-2', 'b-1', 'a-1']);
    expect((await deliveries.recent({ route: 'gh', limit: 1 })).map((record) => record.deliveryId)).toEqual(['a-2']);
  });

  it('keeps subscriptions: a re-subscribe keeps the secret and the creation time; remove says whether one was there', async () => {
    const { subscriptions } = await open();
    const input = { name: 'deploys', events: ['push'], prompt: 'Deployed {ref}', skills: [], deliver: 'log', deliverExtra: { chat: 'ops' }, description: null };
    const made = await subscriptions.save(input, () => 'secret-1', 1_000);
    expect(made).toMatchObject({ created: true, subscription: { name: 'deploys', secret: 'secret-1', events: ['push'], deliverExtra: { chat: 'ops' }, createdAtMs: 1_000, updatedAtMs: 1_000 } });
    const again = await subscriptions.save({ ...input, events: ['push', 'tag_push'] }, () => 'secret-2', 2_000);
    expect(again).toMatchObject({ created: false, subscription: { secret: 'secret-1', events: ['push', 'tag_push'], createdAtMs: 1_000, updatedAtMs: 2_000 } });
    expect((await subscriptions.save({ ...input, secret: 'given' }, () => 'unused', 3_000)).subscription.secret).toBe('given');
    expect((await subscriptions.list()).map((subscription) => subscription.name)).toEqual(['deploys']);
    expect(await subscriptions.remove('deploys')).toBe(true);
    expect(await subscriptions.remove('deploys')).toBe(false);
    expect(await subscriptions.get('deploys')).toBeUndefined();
  });

  it('records runs with their tool calls, finishes them, and closes the ones a crash left running', async () => {
    const { runs } = await open();
    await runs.started({ id: 'run-a', origin: 'webhook:gh', provider: 'openai-compatible', model: 'm1', systemPrompt: 'You are…', prompt: 'Review', startedAtMs: 1_000 });
    await runs.toolCall('run-a', 0, { id: 'call-1', name: 'terminal', args: { command: 'ls' }, result: 'README.md', isError: false, startedAtMs: 1_100, finishedAtMs: 1_200 });
    await runs.toolCall('run-a', 1, { id: 'call-2', name: 'read', args: { path: '/nope' }, result: 'no such file', isError: true, startedAtMs: 1_300, finishedAtMs: 1_400 });
    await runs.finished({ runId: 'run-a', status: 'ok', output: 'Looks good', steps: 3, toolCalls: [], usage: { inputTokens: 120, outputTokens: 30 }, startedAtMs: 1_000, finishedAtMs: 2_000 });
    await runs.started({ id: 'run-b', origin: 'console', provider: 'dry-run', systemPrompt: 's', prompt: 'p', startedAtMs: 3_000 });
    expect(await runs.get('run-a')).toEqual({
      id: 'run-a', origin: 'webhook:gh', status: 'ok', provider: 'openai-compatible', model: 'm1', systemPrompt: 'You are…', prompt: 'Review', output: 'Looks good', error: null,
      steps: 3, inputTokens: 120, outputTokens: 30, startedAtMs: 1_000, finishedAtMs: 2_000,
      toolCalls: [
        { callId: 'call-1', name: 'terminal', args: '{"command":"ls"}', result: 'README.md', isError: false, startedAtMs: 1_100, finishedAtMs: 1_200 },
        { callId: 'call-2', name: 'read', args: '{"path":"/nope"}', result: 'no such file', isError: true, startedAtMs: 1_300, finishedAtMs: 1_400 },
      ],
    });
    expect((await runs.recent()).map((run) => run.id)).toEqual(['run-b', 'run-a']);
    expect(await runs.closeInterrupted('the gateway stopped while it ran', 4_000)).toBe(1);
    expect(await runs.get('run-b')).toMatchObject({ status: 'interrupted', error: 'the gateway stopped while it ran', finishedAtMs: 4_000, model: null, toolCalls: [] });
    expect(await runs.get('nope')).toBeUndefined();
  });

  it('keeps approval requests: the first decision wins, ids are found by prefix, pending in order', async () => {
    const { approvals } = await open();
    const request = (id: string, createdAtMs: number) => ({ id, origin: 'console', tool: 'terminal', server: null, argsPreview: '{"command":"reboot"}',
      annotations: { destructiveHint: true }, reason: 'matches: system power', form: null, createdAtMs, expiresAtMs: createdAtMs + 300_000 });
    await approvals.insert(request('ab12-first', 1_000));
    await approvals.insert({ ...request('ab34-second', 2_000), server: 'fs', form: { message: 'Which file?', schema: { type: 'object' } } });
    await approvals.insert(request('cd56_third', 3_000));
    expect((await approvals.pending()).map((record) => record.id)).toEqual(['ab12-first', 'ab34-second', 'cd56_third']);
    const decisions = await Promise.all([
      approvals.decide('ab12-first', 'denied', { reason: 'not now', by: 'console', atMs: 4_000 }),
      approvals.decide('ab12-first', 'approved', { by: 'cli', atMs: 4_001 }),
    ]);
    expect(decisions.filter(Boolean)).toHaveLength(1);
    const decided = (await approvals.get('ab12-first'))!;
    expect(decided.status === 'denied' ? decided.decisionReason : decided.decidedBy).toBe(decided.status === 'denied' ? 'not now' : 'cli');
    expect(await approvals.decide('ab34-second', 'approved', { by: 'console', values: { file: 'a.txt' }, atMs: 5_000 })).toBe(true);
    expect(await approvals.get('ab34-second')).toMatchObject({ status: 'approved', server: 'fs', values: { file: 'a.txt' }, form: { message: 'Which file?' }, annotations: { destructiveHint: true }, decidedAtMs: 5_000 });
    expect(await approvals.find('ab')).toBe('ambiguous');
    expect((await approvals.find('ab3'))).toMatchObject({ id: 'ab34-second' });
    expect(await approvals.find('ab12-first')).toMatchObject({ annotations: { destructiveHint: true } });
    // A prefix is text, not a pattern: "cd5_" is not "cd56".
    expect(await approvals.find('cd5_')).toBeUndefined();
    expect(await approvals.find('zz')).toBeUndefined();
    expect((await approvals.pending()).map((record) => record.id)).toEqual(['cd56_third']);
    expect((await approvals.recent(2)).map((record) => record.id)).toEqual(['cd56_third', 'ab34-second']);
  });

  it('keeps jobs: due ones by next run, edits, pause, and the counts the header shows', async () => {
    const { jobs } = await open();
    const job = (id: string, name: string, nextRunAtMs: number | null) => ({ id, name, schedule: 'every 1h', prompt: `Do ${name}`, deliver: 'log', origin: 'cli', skills: ['s'],
      script: null, catchUp: 'once' as const, enabled: true, createdAtMs: 1_000 + Number(id.slice(1)), nextRunAtMs });
    await jobs.insert(job('j1', 'digest', 5_000));
    await jobs.insert(job('j2', 'check', 3_000));
    expect(await jobs.insert(job('j3', 'weekly', null))).toBeUndefined();
    // A taken name: the holder's id, nothing written.
    expect(await jobs.insert(job('j4', 'digest', 4_000))).toBe('j1');
    expect(await jobs.get('j4')).toBeUndefined();
    expect(await jobs.get('j1')).toMatchObject({ name: 'digest', skills: ['s'], enabled: true, catchUp: 'once', lastStatus: null, consecutiveFailures: 0, updatedAtMs: 1_001 });
    expect((await jobs.byName('digest')).map((row) => row.id)).toEqual(['j1']);
    expect((await jobs.list()).map((row) => row.id)).toEqual(['j1', 'j2', 'j3']);
    expect((await jobs.due(5_000)).map((row) => row.id)).toEqual(['j2', 'j1']);
    expect(await jobs.earliestNextRunMs()).toBe(3_000);
    await jobs.setEnabled('j2', false, null, 9_000);
    expect(await jobs.counts()).toEqual({ total: 3, enabled: 2 });
    expect(await jobs.earliestNextRunMs()).toBe(5_000);
    expect((await jobs.versions()).get('j2')).toBe(9_000);
    await jobs.setNextRun('j1', 7_000);
    const edit = { schedule: '0 2 * * *', prompt: 'Night', deliver: 'local', skills: [], script: 'x.sh', catchUp: 'skip' as const, nextRunAtMs: 8_000 };
    expect(await jobs.update('j3', { ...edit, name: 'check' }, 9_400)).toBe('j2');
    expect(await jobs.get('j3')).toMatchObject({ name: 'weekly', updatedAtMs: 1_003 });
    await jobs.update('j3', { name: 'nightly', schedule: '0 2 * * *', prompt: 'Night', deliver: 'local', skills: [], script: 'x.sh', catchUp: 'skip', nextRunAtMs: 8_000 }, 9_500);
    expect(await jobs.get('j3')).toMatchObject({ name: 'nightly', schedule: '0 2 * * *', script: 'x.sh', catchUp: 'skip', nextRunAtMs: 8_000, updatedAtMs: 9_500, skills: [] });
    expect((await jobs.due(10_000)).map((row) => row.id)).toEqual(['j1', 'j3']);
    expect(await jobs.remove('j3')).toBe(true);
    expect(await jobs.remove('j3')).toBe(false);
  });

  it('runs jobs: one of three nodes claims a queued run; failures count until a success; a crash closes running ones', async () => {
    const nodes = await backends[name]!(3);
    const { jobs } = nodes[0]!;
    await jobs.insert({ id: 'j1', name: 'digest', schedule: 'every 1h', prompt: 'p', deliver: 'log', origin: 'cli', skills: [], script: null, catchUp: 'once', enabled: true, createdAtMs: 1_000, nextRunAtMs: 2_000 });
    await jobs.addRun({ id: 'r1', jobId: 'j1', jobName: 'digest', trigger: 'schedule', status: 'queued', scheduledAtMs: 2_000, atMs: 2_000 });
    await jobs.addRun({ id: 'r0', jobId: 'j1', jobName: 'digest', trigger: 'schedule', status: 'skipped', reason: 'overlap', atMs: 1_500 });
    expect((await jobs.queued()).map((run) => run.id)).toEqual(['r1']);
    const claims = await Promise.all(nodes.flatMap((node) => [node.jobs.claim('r1', 2_100), node.jobs.claim('r1', 2_100)]));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await jobs.getRun('r1')).toMatchObject({ status: 'running', startedAtMs: 2_100, deliveryOk: null });
    await jobs.finishRun('r1', 'j1', { status: 'delivery_failed', finishedAtMs: 3_000, agentRunId: 'run-1', output: 'text', delivery: { target: 'slack', ok: false, detail: 'HTTP 500' } });
    expect(await jobs.getRun('r1')).toMatchObject({ status: 'delivery_failed', deliveryTarget: 'slack', deliveryOk: false, deliveryDetail: 'HTTP 500', agentRunId: 'run-1', finishedAtMs: 3_000 });
    // The job's version moves with its last status: other nodes (and the CLI) notice a run by it.
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'delivery_failed', lastError: 'HTTP 500', consecutiveFailures: 1, lastRunAtMs: 3_000, updatedAtMs: 3_000 });
    expect((await jobs.versions()).get('j1')).toBe(3_000);
    await jobs.addRun({ id: 'r2', jobId: 'j1', jobName: 'digest', trigger: 'manual', status: 'running', atMs: 4_000 });
    expect(await jobs.closeInterrupted('the gateway stopped', 5_000)).toBe(1);
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'interrupted', consecutiveFailures: 2, updatedAtMs: 5_000 });
    await jobs.addRun({ id: 'r3', jobId: 'j1', jobName: 'digest', trigger: 'manual', status: 'running', atMs: 6_000 });
    await jobs.finishRun('r3', 'j1', { status: 'ok', finishedAtMs: 6_500, delivery: { target: 'log', ok: true, detail: 'written' } });
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'ok', lastError: null, consecutiveFailures: 0 });
    expect(await jobs.getRun('r3')).toMatchObject({ deliveryOk: true });
    await jobs.addRun({ id: 'r4', jobId: 'j1', jobName: 'digest', trigger: 'manual', status: 'queued', atMs: 7_000 });
    expect(await jobs.expireQueued('queued for a gateway that stopped', 8_000, 7_000)).toBe(0); // not queued before 7_000: left to take
    expect(await jobs.expireQueued('queued for a gateway that stopped', 8_000, 7_001)).toBe(1);
    expect(await jobs.getRun('r4')).toMatchObject({ status: 'error', error: 'queued for a gateway that stopped' });
    expect((await jobs.runs('j1', 3)).map((run) => run.id)).toEqual(['r4', 'r3', 'r2']);
    expect((await jobs.runs(undefined, 10)).map((run) => run.id)).toEqual(['r4', 'r3', 'r2', 'r1', 'r0']);
  });

  it('gives each slot of a job to one of three nodes taking it at once', async () => {
    const nodes = await backends[name]!(3);
    await Promise.all(nodes.flatMap((node) => Array.from({ length: 10 }, () => node.jobs.list()))); // connections open: the takes overlap
    await nodes[0]!.jobs.insert({ id: 'j1', name: 'minutely', schedule: 'every 1m', prompt: 'p', deliver: 'log', origin: 'cli', skills: [], script: null, catchUp: 'once', enabled: true, createdAtMs: 0, nextRunAtMs: 60_000 });
    for (let slot = 60_000; slot <= 300_000; slot += 60_000) {
      const takes = await Promise.all(Array.from({ length: 9 }, (_unused, index) => nodes[index % 3]!.jobs.takeSlot('j1', slot, slot + 60_000)));
      expect(takes.filter(Boolean), `slot ${slot}`).toHaveLength(1);
      expect((await nodes[1]!.jobs.get('j1'))!.nextRunAtMs).toBe(slot + 60_000);
    }
    expect(await nodes[0]!.jobs.takeSlot('j1', 60_000, 120_000)).toBe(false); // a slot already taken
    await nodes[0]!.jobs.setEnabled('j1', false, null, 400_000);
    expect(await nodes[0]!.jobs.takeSlot('j1', 360_000, 420_000)).toBe(false); // paused meanwhile
    expect(await nodes[0]!.jobs.takeSlot('nope', 360_000, 420_000)).toBe(false);
  });

  it('gives one name to one job when three nodes create or rename to it at once', async () => {
    const nodes = await backends[name]!(3);
    await Promise.all(nodes.flatMap((node) => Array.from({ length: 10 }, () => node.jobs.list())));
    const job = (id: string, jobName: string) => ({ id, name: jobName, schedule: 'every 1h', prompt: 'p', deliver: 'log', origin: 'cli', skills: [], script: null, catchUp: 'once' as const, enabled: true, createdAtMs: 1_000, nextRunAtMs: 2_000 });
    for (let round = 0; round < 5; round += 1) {
      const holders = await Promise.all(Array.from({ length: 6 }, (_unused, index) => nodes[index % 3]!.jobs.insert(job(`c${round}-${index}`, `twin-${round}`))));
      expect(holders.filter((holder) => holder === undefined), `round ${round}`).toHaveLength(1);
      expect(await nodes[0]!.jobs.byName(`twin-${round}`), `round ${round}`).toHaveLength(1);
    }
    for (const id of ['r-0', 'r-1', 'r-2']) await nodes[0]!.jobs.insert(job(id, `before-${id}`));
    const edit = { schedule: 'every 1h', prompt: 'p', deliver: 'log', skills: [], script: null, catchUp: 'once' as const, nextRunAtMs: 2_000 };
    const renamed = await Promise.all(['r-0', 'r-1', 'r-2'].map((id, index) => nodes[index]!.jobs.update(id, { ...edit, name: 'renamed' }, 3_000)));
    expect(renamed.filter((holder) => holder === undefined)).toHaveLength(1);
    expect(await nodes[0]!.jobs.byName('renamed')).toHaveLength(1);
  });

  it('keeps output deliveries with their attempts; a crash mid-send leaves repeatable ones failed, the others uncertain', async () => {
    const { outputDeliveries: outputs } = await open();
    const subject = { kind: 'webhook' as const, route: 'gh', deliveryId: 'd-1', event: 'pull_request' };
    await outputs.create({ id: 'od_1', target: 'github', extra: { pr_number: 42 }, subject, output: 'LGTM', runFailed: false, createdAtMs: 1_000 });
    await outputs.attempt('od_1', { chunk: 0, attempt: 1, atMs: 1_100, ok: false, status: 502, error: 'Bad Gateway' });
    await outputs.attempt('od_1', { chunk: 0, attempt: 2, atMs: 1_200, ok: true, status: 201, error: null });
    await outputs.settle('od_1', { status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: 'comment 7', atMs: 1_300 });
    expect(await outputs.earlierSendFor('gh', 'd-1', 1_000)).toEqual({ id: 'od_1', status: 'delivered' });
    expect(await outputs.earlierSendFor('gh', 'd-1', 1_001)).toBeUndefined(); // the id accepted again later: another delivery
    expect(await outputs.get('od_1')).toEqual({
      id: 'od_1', target: 'github', extra: { pr_number: 42 }, subject, output: 'LGTM', runFailed: false, status: 'delivered', chunksTotal: 1, chunksSent: 1,
      detail: 'comment 7', error: null, createdAtMs: 1_000, updatedAtMs: 1_300,
      attempts: [{ chunk: 0, attempt: 1, atMs: 1_100, ok: false, status: 502, error: 'Bad Gateway' }, { chunk: 0, attempt: 2, atMs: 1_200, ok: true, status: 201, error: null }],
    });
    await outputs.create({ id: 'od_2', target: 'github', extra: {}, subject, output: 'again', runFailed: true, createdAtMs: 2_000 });
    await outputs.create({ id: 'od_3', target: 'log', extra: {}, subject: { kind: 'console', runId: 'r' }, output: 'x', runFailed: false, createdAtMs: 3_000 });
    expect(await outputs.recoverInterrupted((target) => target === 'log', 4_000)).toEqual({ uncertain: 1, failed: 1 });
    expect(await outputs.get('od_2')).toMatchObject({ status: 'uncertain', runFailed: true, updatedAtMs: 4_000 });
    expect(await outputs.earlierSendFor('gh', 'd-1', 0)).toEqual({ id: 'od_2', status: 'uncertain' });
    expect(await outputs.earlierSendFor('gh', 'd-2', 0)).toBeUndefined();
    expect(await outputs.countFailed()).toBe(1);
    expect((await outputs.recent({ failedOnly: true })).map((record) => record.id)).toEqual(['od_3', 'od_2']);
    expect((await outputs.recent({ limit: 2 })).map((record) => record.id)).toEqual(['od_3', 'od_2']);
    expect(await outputs.find('od_')).toBe('ambiguous');
    expect(await outputs.find('od_3')).toMatchObject({ target: 'log' });
    expect(await outputs.find('od%')).toBeUndefined();
    // Sends recorded with the delivery row's id are found by it, whatever the clock of the node that
    // sent them said (here earlier than the claim); another row's sends of the same id are not.
    await outputs.create({ id: 'od_4', target: 'github', extra: {}, subject: { ...subject, deliveryId: 'd-3', seq: 7 }, output: 'o', runFailed: false, createdAtMs: 4_500 });
    await outputs.create({ id: 'od_5', target: 'github', extra: {}, subject: { ...subject, deliveryId: 'd-3', seq: 8 }, output: 'o', runFailed: false, createdAtMs: 9_000 });
    await outputs.settle('od_4', { status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: 'sent', atMs: 4_600 });
    expect(await outputs.earlierSendFor('gh', 'd-3', 5_000, 7)).toEqual({ id: 'od_4', status: 'delivered' });
    expect(await outputs.earlierSendFor('gh', 'd-3', 0, 9)).toBeUndefined();
    expect(await outputs.earlierSendFor('gh', 'd-1', 0, 7)).toEqual({ id: 'od_2', status: 'uncertain' }); // a record without a row id: by time
    expect(await outputs.earlierSendFor('gh', 'd-3', 5_000)).toEqual({ id: 'od_5', status: 'sending' }); // no row id asked: by time
  });

  it('a retry takes a failed or uncertain record once: sending again, the other claims refused; a sending or delivered one is not taken', async () => {
    const { outputDeliveries: outputs } = await open();
    const subject = { kind: 'webhook' as const, route: 'gh', deliveryId: 'd-r', event: 'pull_request' };
    for (const id of ['or_failed', 'or_uncertain', 'or_sending', 'or_done']) await outputs.create({ id, target: 'github', extra: {}, subject, output: 'o', runFailed: false, createdAtMs: 1_000 });
    await outputs.settle('or_failed', { status: 'failed', chunksTotal: 1, chunksSent: 0, error: 'HTTP 500', atMs: 1_100 });
    await outputs.settle('or_uncertain', { status: 'uncertain', chunksTotal: 1, chunksSent: 0, atMs: 1_100 });
    await outputs.settle('or_done', { status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: 'sent', atMs: 1_100 });
    const claims = await Promise.all([outputs.claimRetry('or_failed', 2_000), outputs.claimRetry('or_failed', 2_000), outputs.claimRetry('or_failed', 2_000)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await outputs.get('or_failed')).toMatchObject({ status: 'sending', updatedAtMs: 2_000, error: 'HTTP 500' });
    expect(await outputs.claimRetry('or_uncertain', 2_000)).toBe(true);
    expect(await outputs.claimRetry('or_sending', 2_000)).toBe(false);
    expect(await outputs.claimRetry('or_done', 2_000)).toBe(false);
    expect(await outputs.claimRetry('or_missing', 2_000)).toBe(false);
    // A crash during the retry: the record is in doubt again, as after a crash mid-send.
    expect(await outputs.recoverInterrupted(() => false, 3_000)).toMatchObject({ uncertain: 3 });
  });

  it('records a retry that delivered: the webhook delivery and the job run say so, a failed run or a later one stays', async () => {
    const { deliveries, jobs, outputDeliveries: outputs } = await open();
    for (const id of ['rd-1', 'rd-2']) await deliveries.accept(delivery(id), WINDOW);
    const [undelivered, runFailed] = await deliveries.claimQueued(2_000, 2);
    await deliveries.finish(undelivered!, 'delivery_failed', 'HTTP 500', 3_000, { runId: 'run-1', status: 'ok', output: 'LGTM' });
    await deliveries.finish(runFailed!, 'failed', 'written to the log', 3_000, { runId: 'run-2', status: 'error', output: '' });
    expect(await deliveries.redelivered(undelivered!.seq, 'sent on retry')).toBe(true);
    expect(await deliveries.get(undelivered!.seq)).toMatchObject({ state: 'delivered', deliveryDetail: 'sent on retry', runId: 'run-1', finishedAtMs: 3_000 });
    expect(await deliveries.redelivered(undelivered!.seq, 'again')).toBe(false); // delivered already
    expect(await deliveries.redelivered(runFailed!.seq, 'sent on retry')).toBe(false); // its run failed: it stays failed
    expect(await deliveries.get(runFailed!.seq)).toMatchObject({ state: 'failed', deliveryDetail: 'written to the log' });

    await jobs.insert({ id: 'j1', name: 'digest', schedule: 'every 1h', prompt: 'p', deliver: 'local', origin: 'cli', skills: [], script: null, catchUp: 'once', enabled: true, createdAtMs: 1_000, nextRunAtMs: 2_000 });
    const failedDelivery = { status: 'delivery_failed' as const, output: 'text', error: 'delivery to local failed: EEXIST', delivery: { target: 'local', ok: false, detail: 'EEXIST' } };
    for (const [id, atMs] of [['r1', 3_000], ['r2', 4_000]] as const) {
      await jobs.addRun({ id, jobId: 'j1', jobName: 'digest', trigger: 'manual', status: 'running', atMs });
      await jobs.finishRun(id, 'j1', { ...failedDelivery, finishedAtMs: atMs + 100 });
    }
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'delivery_failed', consecutiveFailures: 2, updatedAtMs: 4_100 });
    // An earlier run: it is ok now, the job's last status (the later run's) is not its to change.
    expect(await jobs.redelivered('r1', 'sent on retry', 5_000)).toBe(false);
    expect(await jobs.getRun('r1')).toMatchObject({ status: 'ok', error: null, deliveryOk: true, deliveryDetail: 'sent on retry' });
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'delivery_failed', consecutiveFailures: 2, updatedAtMs: 4_100 });
    // The last run: the job shows what a successful run shows, and its version moves (other processes notice).
    expect(await jobs.redelivered('r2', 'sent on retry', 5_000)).toBe(true);
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'ok', lastError: null, consecutiveFailures: 0, lastRunAtMs: 4_100, updatedAtMs: 5_000 });
    expect(await jobs.redelivered('r2', 'again', 6_000)).toBe(false);
    await jobs.addRun({ id: 'r3', jobId: 'j1', jobName: 'digest', trigger: 'manual', status: 'running', atMs: 7_000 });
    await jobs.finishRun('r3', 'j1', { status: 'error', error: 'agent run failed', finishedAtMs: 7_100, delivery: { target: 'local', ok: false, detail: 'EEXIST' } });
    expect(await jobs.redelivered('r3', 'sent on retry', 8_000)).toBe(false);
    expect(await jobs.getRun('r3')).toMatchObject({ status: 'error', deliveryOk: false });
    expect(await jobs.get('j1')).toMatchObject({ lastStatus: 'error', consecutiveFailures: 1 });

    // A record written once (a file, a log line) carries the one attempt of its send.
    const attempt = { chunk: 0, attempt: 1, atMs: 9_000, ok: false, status: null, error: 'cannot write' };
    await outputs.create({ id: 'od_once', target: 'local', extra: {}, subject: { kind: 'job', jobId: 'j1', jobName: 'digest', runId: 'r3' }, output: 'x', runFailed: false, createdAtMs: 9_000 },
      { status: 'failed', chunksTotal: 1, chunksSent: 1, error: 'cannot write', atMs: 9_000, attempt });
    await outputs.attempt('od_once', { ...attempt, atMs: 9_500, ok: true, error: null }); // a retry's
    expect((await outputs.get('od_once'))!.attempts).toEqual([attempt, { ...attempt, atMs: 9_500, ok: true, error: null }]);
  });

  it('keeps the audit log, newest first', async () => {
    const { audit } = await open();
    await audit.record('gateway', 'start', 'pid 1');
    await audit.record('cli', 'config.set', undefined);
    expect((await audit.recent()).map((entry) => [entry.source, entry.kind, entry.detail])).toEqual([['cli', 'config.set', null], ['gateway', 'start', 'pid 1']]);
    expect(await audit.recent(1)).toHaveLength(1);
  });

  it('keeps one secret when three nodes save one new subscription at once', async () => {
    const nodes = await backends[name]!(3);
    await Promise.all(nodes.flatMap((node) => Array.from({ length: 10 }, () => node.subscriptions.list())));
    let made = 0;
    for (let round = 0; round < 5; round += 1) {
      const input = { name: `race-${round}`, events: [], prompt: null, skills: [], deliver: 'log', deliverExtra: {}, description: null };
      const saved = await Promise.all(Array.from({ length: 12 }, (_unused, index) => nodes[index % 3]!.subscriptions.save(input, () => `secret-${++made}`, 1_000)));
      expect(new Set(saved.map((result) => result.subscription.secret)).size, `round ${round}`).toBe(1);
      expect(saved.filter((result) => result.created), `round ${round}`).toHaveLength(1);
    }
  });
});

describe('PostgreSQL migrations', () => {
  it('run once when several nodes open one database at the same moment', async () => {
    const url = await postgres().freshDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => openPgStore(url)));
    try {
      const { rows } = await stores[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.version)).toEqual(pgMigrations.map((migration) => migration.version));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

describe('PostgreSQL: rows say which node they belong to', () => {
  it('an approval request keeps the node whose run asked, a job run the node that took it', async () => {
    const url = await postgres().freshDatabase();
    const [storeA, storeB] = await Promise.all([openPgStore(url), openPgStore(url)]);
    closers.push(() => storeA!.close(), () => storeB!.close());
    const a = pgBackends(storeA!, Date.now, 'node-a');
    const b = pgBackends(storeB!, Date.now, 'node-b');
    await a.approvals.insert({ id: 'asked-on-a', origin: 'webhook:gh:1', tool: 'terminal', server: null, argsPreview: '{}', annotations: null, reason: null, form: null, createdAtMs: 1_000, expiresAtMs: 301_000 });
    expect(await b.approvals.decide('asked-on-a', 'approved', { by: 'console', atMs: 2_000 })).toBe(true);
    expect(await b.approvals.get('asked-on-a')).toMatchObject({ node: 'node-a', status: 'approved' }); // deciding elsewhere keeps it
    expect((await b.approvals.recent(1))[0]).toMatchObject({ node: 'node-a' });

    await a.jobs.insert({ id: 'j1', name: 'digest', schedule: 'every 1h', prompt: 'p', deliver: 'log', origin: 'cli', skills: [], script: null, catchUp: 'once', enabled: true, createdAtMs: 1_000, nextRunAtMs: 2_000 });
    await a.jobs.addRun({ id: 'r1', jobId: 'j1', jobName: 'digest', trigger: 'schedule', status: 'queued', scheduledAtMs: 2_000, atMs: 2_000 });
    expect(await a.jobs.getRun('r1')).not.toHaveProperty('node'); // queued: no node holds it yet
    expect(await b.jobs.claim('r1', 2_100)).toBe(true);
    expect((await a.jobs.runs('j1', 1))[0]).toMatchObject({ id: 'r1', node: 'node-b' });
  });
});

describe('PostgreSQL: each node recovers only what it held', () => {
  it('a restarted node requeues its own running deliveries and closes its own runs, not those another node is running', async () => {
    const url = await postgres().freshDatabase();
    const [storeA, storeB] = await Promise.all([openPgStore(url), openPgStore(url)]);
    closers.push(() => storeA!.close(), () => storeB!.close());
    const a = pgBackends(storeA!, Date.now, 'node-a');
    const b = pgBackends(storeB!, Date.now, 'node-b');
    for (const id of ['n-1', 'n-2']) await a.deliveries.accept(delivery(id), WINDOW);
    const heldByA = (await a.deliveries.claimQueued(2_000, 1))[0]!;
    const heldByB = (await b.deliveries.claimQueued(2_000, 1))[0]!;
    await a.runs.started({ id: 'run-a', origin: 'webhook', provider: 'dry-run', systemPrompt: '', prompt: 'p', startedAtMs: 2_000 });
    await b.runs.started({ id: 'run-b', origin: 'webhook', provider: 'dry-run', systemPrompt: '', prompt: 'p', startedAtMs: 2_000 });

    // B restarts: its row goes back to the queue and its run is closed; A's row and run stay running.
    expect((await b.deliveries.recover()).requeued).toBe(1);
    expect(await b.runs.closeInterrupted('stopped', 3_000)).toBe(1);
    expect((await a.deliveries.get(heldByA.seq))!.state).toBe('running');
    expect((await a.deliveries.get(heldByB.seq))!.state).toBe('queued');
    expect((await a.runs.get('run-a'))!.status).toBe('running');
    expect((await a.runs.get('run-b'))!.status).toBe('interrupted');
  });
});

describe.each(Object.keys(backends))('crash recovery of webhook runs on %s', (name) => {
  it('takes the result of a run that finished before the crash let the queue record it, instead of running it again', async () => {
    const { deliveries, runs } = (await backends[name]!())[0]!;
    for (const id of ['done-1', 'cut-1']) await deliveries.accept(delivery(id), WINDOW);
    const done = (await deliveries.claimQueued(2_000, 1))[0]!;
    const cut = (await deliveries.claimQueued(2_000, 1))[0]!;
    for (const [runId, row] of [['run-done', done], ['run-cut', cut]] as const) {
      await runs.started({ id: runId, origin: `webhook:gh:${row.deliveryId}`, provider: 'dry-run', systemPrompt: '', prompt: 'p', startedAtMs: 2_100 });
    }
    await runs.finished({ runId: 'run-done', status: 'ok', output: 'Looks good', steps: 1, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, startedAtMs: 2_100, finishedAtMs: 2_200 });
    // The crash: neither recordRun happened. The finished run is delivered as it is; the other runs again.
    const { requeued, undelivered } = await deliveries.recover();
    expect(requeued).toBe(1);
    expect(undelivered).toEqual([expect.objectContaining({ deliveryId: 'done-1', runId: 'run-done', runStatus: 'ok', output: 'Looks good' })]);
    expect((await deliveries.get(cut.seq))!.state).toBe('queued');
  });
});
