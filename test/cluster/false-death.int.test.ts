import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTakeover } from '../../source/cluster/takeover.js';
import type { ConfigFile } from '../../source/config/types.js';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import { openSharedStore, type SharedStore } from '../../source/store/shared-store.js';
import type { DeliveryRecord } from '../../source/store/webhook-deliveries.js';
import { createRunQueue } from '../../source/webhooks/run-queue.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { usePostgres } from '../helpers/cluster.js';

/**
 * A false death (docs/cluster.md, "Cost of a false death"), step by step on a real PostgreSQL: node
 * B holds a webhook run whose output goes to a chat (a send that must not happen twice), goes
 * silent, and node A takes its work over; then B wakes up and carries on. Whatever the order of
 * B's steps and A's takeover, the chat gets the message at most once, and B's late writes change
 * nothing that A now holds.
 */
const postgres = usePostgres();
const cleanups: Array<() => unknown> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

const logger = pino({ level: 'silent' });
const ROUTE = 'chat';

/** A Telegram API on loopback that records each sendMessage; `hang`: it never answers (a send on its way). */
async function telegram(options: { hang?: boolean } = {}) {
  const chat = await startFakeService([{ body: { ok: true, result: { message_id: 1 } }, hang: options.hang }]);
  cleanups.push(() => chat.close());
  return chat;
}

async function node(url: string, id: string, chat: { url: string }) {
  const shared = await openSharedStore(url, id, { heartbeatMs: 100 });
  cleanups.push(() => shared.close());
  const homeRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-false-death-'));
  cleanups.push(() => fs.rmSync(homeRoot, { recursive: true, force: true }));
  const config = { platforms: { telegram: { enabled: true, bot_token: '123:ABC', api_base_url: chat.url } } } as unknown as ConfigFile;
  const delivery = createDeliveryService({ homeRoot, logger, config, history: shared.backends.outputDeliveries, retry: { attempts: 1 } });
  const queue = createRunQueue({
    deliveries: shared.backends.deliveries, deliver: delivery.deliver, maxConcurrentRuns: 1, logger, now: Date.now,
    runAgent: () => { throw new Error('no run here: only adopted deliveries are delivered'); },
    earlierSend: (route, deliveryId, sinceMs, seq) => shared.backends.outputDeliveries.earlierSendFor(route, deliveryId, sinceMs, seq),
  });
  return { shared, delivery, queue };
}

/** Node B accepts and claims a delivery whose output goes to the chat. */
async function claimedBy(b: SharedStore, deliveryId: string): Promise<DeliveryRecord> {
  const accepted = await b.backends.deliveries.accept({ route: ROUTE, deliveryId, event: 'push', headers: {}, body: Buffer.from('{}'), prompt: 'Say hi', skills: [], target: 'telegram:42', targetExtra: {}, receivedAtMs: Date.now() }, 60_000);
  expect(accepted.kind).toBe('accepted');
  const claimed = (await b.backends.deliveries.claimQueued(Date.now(), 1))[0];
  expect(claimed?.deliveryId).toBe(deliveryId);
  return claimed!;
}

const run = { runId: 'run-on-b', status: 'ok', output: 'Hello from the run' };
/** What the run queue asks of the delivery service for this row (source/webhooks/run-queue.ts). */
const request = (row: DeliveryRecord) => ({ target: row.target, output: run.output, subject: { kind: 'webhook' as const, route: row.route, deliveryId: row.deliveryId, event: row.event, seq: row.seq }, held: row });

async function takeOver(a: SharedStore, silent: string): Promise<DeliveryRecord[]> {
  let handed: DeliveryRecord[] = [];
  await createTakeover({ shared: a, now: Date.now, logger, deliver: async (rows) => { handed = rows; } })(silent);
  return handed;
}

describe('a node taken for dead that wakes up again (cluster mode)', () => {
  it('does not send what it held once another node took it over; its late writes change nothing; the taker sends once', async () => {
    const url = await postgres().freshDatabase();
    const chat = await telegram();
    const a = await node(url, 'node-a', chat);
    const b = await node(url, 'node-b', chat);
    const row = await claimedBy(b.shared, 'fd-1');
    await b.shared.backends.deliveries.recordRun(row, run);

    const handed = await takeOver(a.shared, 'node-b'); // B is silent: A takes its finished run to deliver
    expect(handed.map((each) => each.deliveryId)).toEqual(['fd-1']);

    // B wakes up and delivers what it held: refused before anything is sent.
    const late = await b.delivery.deliver(request(row));
    expect(late).toMatchObject({ ok: false, reason: expect.stringContaining('node node-b no longer holds webhook delivery chat fd-1: another node took over its work') });
    expect(await b.shared.backends.deliveries.finish(row, 'delivery_failed', late.ok ? '' : late.reason, Date.now())).toBe(false);
    expect(chat.calls).toHaveLength(0);
    expect(await a.shared.backends.deliveries.get(row.seq)).toMatchObject({ state: 'running', deliveryDetail: null });

    await a.queue.adopt(handed); // A delivers it (the send goes on in the background): once
    await expect.poll(async () => (await a.shared.backends.deliveries.get(row.seq))?.state).toBe('delivered');
    expect(await a.shared.backends.deliveries.get(row.seq)).toMatchObject({ runId: 'run-on-b', deliveryDetail: 'sent to telegram 42' });
    expect(chat.calls).toHaveLength(1);
    const sends = await a.shared.backends.outputDeliveries.recent();
    expect(sends.map((send) => [send.status, send.target])).toEqual([['delivered', 'telegram:42']]);
  });

  // As before this fence: the takeover marks the silent node's sends first (the baseline the others build on).
  it('is not sent again by the node that took over when the silent node recorded its send first', async () => {
    const url = await postgres().freshDatabase();
    const chat = await telegram({ hang: true }); // B's message is on its way when A takes over
    const a = await node(url, 'node-a', chat);
    const b = await node(url, 'node-b', chat);
    const row = await claimedBy(b.shared, 'fd-2');
    await b.shared.backends.deliveries.recordRun(row, run);
    void b.delivery.deliver(request(row));
    await expect.poll(() => chat.calls.length).toBe(1);

    await a.queue.adopt(await takeOver(a.shared, 'node-b'));
    await expect.poll(async () => (await a.shared.backends.deliveries.get(row.seq))?.state).toBe('delivery_failed');
    expect((await a.shared.backends.deliveries.get(row.seq))!.deliveryDetail).toMatch(/^uncertain: the gateway stopped while this was being sent to telegram:42; it may have arrived/);
    expect(chat.calls).toHaveLength(1);
  });

  it('is not sent again when the silent node recorded its send between the takeover marking sends and taking runs', async () => {
    const url = await postgres().freshDatabase();
    const chat = await telegram({ hang: true });
    const a = await node(url, 'node-a', chat);
    const b = await node(url, 'node-b', chat);
    const row = await claimedBy(b.shared, 'fd-3');
    await b.shared.backends.deliveries.recordRun(row, run);
    // The takeover's steps (source/cluster/takeover.ts), with B's send landing between the first two.
    const ofB = a.shared.backendsOf('node-b');
    await ofB.outputDeliveries.recoverInterrupted(() => false, Date.now());
    void b.delivery.deliver(request(row));
    await expect.poll(() => chat.calls.length).toBe(1);
    const { undelivered } = await ofB.deliveries.recover();
    expect(await a.shared.nodes.adoptDeliveries('node-b', undelivered)).toEqual(new Set([row.seq]));

    await a.queue.adopt(undelivered);
    await expect.poll(async () => (await a.shared.backends.deliveries.get(row.seq))?.state).toBe('delivery_failed');
    expect((await a.shared.backends.deliveries.get(row.seq))!.deliveryDetail).toMatch(/^uncertain: another node was sending this to telegram:42; it may have arrived/);
    expect(chat.calls).toHaveLength(1);
  });

  it('keeps what the woken node claimed again between the takeover queueing its runs and adopting its finished ones', async () => {
    const url = await postgres().freshDatabase();
    const chat = await telegram();
    const a = await node(url, 'node-a', chat);
    const b = await node(url, 'node-b', chat);
    const unfinished = await claimedBy(b.shared, 'fd-5'); // still running when B goes silent
    const finished = await claimedBy(b.shared, 'fd-6');
    await b.shared.backends.deliveries.recordRun(finished, run);
    const ofB = a.shared.backendsOf('node-b');
    await ofB.outputDeliveries.recoverInterrupted(() => false, Date.now());
    const { requeued, undelivered } = await ofB.deliveries.recover();
    expect([requeued, undelivered.map((row) => row.deliveryId)]).toEqual([1, ['fd-6']]);
    const again = (await b.shared.backends.deliveries.claimQueued(Date.now() + 5, 1))[0]; // B wakes up and claims fd-5 anew
    expect(again?.deliveryId).toBe('fd-5');
    expect(await a.shared.nodes.adoptDeliveries('node-b', undelivered)).toEqual(new Set([finished.seq]));
    expect(await a.shared.backends.deliveries.get(unfinished.seq)).toMatchObject({ state: 'running', startedAtMs: again!.startedAtMs });

    // B's new claim is B's to finish: its run, its send, its final state.
    await b.shared.backends.deliveries.recordRun(again!, run);
    expect(await b.delivery.deliver(request(again!))).toMatchObject({ ok: true });
    expect(await b.shared.backends.deliveries.finish(again!, 'delivered', 'sent', Date.now())).toBe(true);
    expect(chat.calls).toHaveLength(1);
  });

  it('refuses the old claim of a run it was taken over from and claimed again itself', async () => {
    const url = await postgres().freshDatabase();
    const chat = await telegram();
    const a = await node(url, 'node-a', chat);
    const b = await node(url, 'node-b', chat);
    const first = await claimedBy(b.shared, 'fd-4'); // its run is still on its way when B goes silent
    expect(await takeOver(a.shared, 'node-b')).toEqual([]); // not run yet: queued again
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later claim time
    const again = (await b.shared.backends.deliveries.claimQueued(Date.now(), 1))[0]; // B, awake, claims it anew
    expect(again).toMatchObject({ seq: first.seq, state: 'running' });

    // The first claim's run ends late: nothing it writes or sends counts.
    await b.shared.backends.deliveries.recordRun(first, { ...run, runId: 'stale-run' });
    expect(await b.delivery.deliver(request(first))).toMatchObject({ ok: false });
    expect(await b.shared.backends.deliveries.finish(first, 'delivery_failed', 'stale', Date.now())).toBe(false);
    expect(await b.shared.backends.deliveries.get(first.seq)).toMatchObject({ state: 'running', runId: null, startedAtMs: again!.startedAtMs });
    expect(chat.calls).toHaveLength(0);

    // The new claim's run goes through.
    await b.shared.backends.deliveries.recordRun(again!, run);
    expect(await b.delivery.deliver(request(again!))).toMatchObject({ ok: true });
    expect(await b.shared.backends.deliveries.finish(again!, 'delivered', 'sent', Date.now())).toBe(true);
    expect(await b.shared.backends.deliveries.get(first.seq)).toMatchObject({ state: 'delivered', runId: 'run-on-b' });
    expect(chat.calls).toHaveLength(1);
  });
});
