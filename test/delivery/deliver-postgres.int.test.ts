import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConfigFile } from '../../source/config/types.js';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import type { DeliveryRequest } from '../../source/delivery/types.js';
import { pgBackends } from '../../source/store/pg/backends.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { usePostgres } from '../helpers/cluster.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The delivery service on the PostgreSQL backend (issue #19): every write is a round trip there, so
 * a record's row, its attempts and its outcome must be written in that order, and the record must be
 * on the database before a chat gets the message.
 */
const postgres = usePostgres();

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const subject: DeliveryRequest['subject'] = { kind: 'webhook', route: 'gh', deliveryId: 'd-1', event: 'push' };
const telegram = (url: string) => ({ platforms: { telegram: { enabled: true, bot_token: 't', api_base_url: url } } }) as ConfigFile;

async function openStore(url: string): Promise<PgStore> {
  const store = await openPgStore(url);
  let closed = false;
  closers.push(() => (closed ? undefined : store.close()));
  return { ...store, close: async () => { closed = true; await store.close(); } };
}

function service(store: PgStore, config: ConfigFile, homeRoot = tempHome().root, attempts = 3) {
  return createDeliveryService({ homeRoot, logger: pino({ level: 'silent' }), config, history: pgBackends(store).outputDeliveries, retry: { attempts, baseDelayMs: 5 } });
}

/** A chat API that holds its first request unanswered (a send in flight when the gateway dies) and answers the others. */
async function startHoldingService() {
  const held: http.ServerResponse[] = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => { arrived = resolve; });
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls += 1;
      if (calls === 1) {
        held.push(res);
        arrived();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  closers.push(close);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, first, calls: () => calls, dropHeld: () => server.closeAllConnections() };
}

describe('output deliveries on PostgreSQL', () => {
  it('records a send with every attempt in order, and a repeatable one in one write with its outcome', async () => {
    const fake = await startFakeService([{ status: 500, body: { ok: false } }, { status: 500, body: { ok: false } }, { body: { ok: true } }]);
    closers.push(fake.close);
    const store = await openStore(await postgres().freshDatabase());
    const { deliver, history, failedCount } = service(store, telegram(fake.url));

    const sent = await deliver({ target: 'telegram:1', output: 'hi', subject });
    expect(sent).toMatchObject({ ok: true, detail: 'sent to telegram 1' });
    const record = await history!.get(sent.recordId!);
    expect(record).toMatchObject({ status: 'delivered', target: 'telegram:1', chunksTotal: 1, chunksSent: 1, subject, detail: 'sent to telegram 1' });
    expect(record!.attempts.map((a) => [a.chunk, a.attempt, a.ok, a.status])).toEqual([[0, 1, false, 500], [0, 2, false, 500], [0, 3, true, 200]]);

    // `log` can be written again after a crash at no cost: no `sending` row first, one insert with the outcome.
    const create = vi.spyOn(history!, 'create');
    const settle = vi.spyOn(history!, 'settle');
    const logged = await deliver({ target: 'log', output: 'to the log', subject: { kind: 'console', runId: 'r-1' } });
    expect(create).toHaveBeenCalledTimes(1);
    expect(settle).not.toHaveBeenCalled();
    // Its one attempt goes in with it (one statement): every record counts its attempts.
    expect(await history!.get(logged.recordId!)).toMatchObject({ status: 'delivered', target: 'log', chunksTotal: 1, chunksSent: 1, detail: expect.any(String), attempts: [{ chunk: 0, attempt: 1, ok: true, status: null, error: null }] });
    create.mockRestore();
    settle.mockRestore();

    expect(failedCount()).toBe(0);
    const refused = await startFakeService([{ status: 400, body: { ok: false, description: 'chat not found' } }]);
    closers.push(refused.close);
    const other = service(store, telegram(refused.url));
    const failed = await other.deliver({ target: 'telegram:2', output: 'x', subject: { kind: 'job', jobId: 'j', jobName: 'nightly', runId: 'r-2' } });
    expect(failed).toMatchObject({ ok: false, reason: expect.stringContaining('telegram to 2 failed: HTTP 400') });
    expect(await history!.get(failed.recordId!)).toMatchObject({ status: 'failed', chunksSent: 0, error: expect.stringContaining('chat not found'), attempts: [{ attempt: 1, ok: false, status: 400 }] });
    expect(other.failedCount()).toBe(1);
  });

  it('does not send to a chat when its record cannot be written first', async () => {
    const fake = await startFakeService();
    closers.push(fake.close);
    const store = await openStore(await postgres().freshDatabase());
    const { deliver } = service(store, telegram(fake.url));
    await store.close();
    const result = await deliver({ target: 'telegram:3', output: 'x', subject });
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^not sent to telegram:3: its record could not be written first \(.+\)$/) });
    expect(fake.calls).toHaveLength(0);
  });

  it('a send in flight when the gateway dies is found uncertain by the next one, and is retried on request', async () => {
    const chat = await startHoldingService();
    const url = await postgres().freshDatabase();
    const home = tempHome();
    const firstStore = await openStore(url);
    const dying = service(firstStore, telegram(chat.url), home.root, 1);

    const inFlight = dying.deliver({ target: 'telegram:7', output: 'review done', subject });
    await chat.first;
    // The row is on the database before the chat got the message.
    const next = service(await openStore(url), telegram(chat.url), home.root);
    const [row] = await next.history!.recent();
    expect(row).toMatchObject({ target: 'telegram:7', status: 'sending' });
    // A repeatable send the dead process had recorded but not finished.
    await next.history!.create({ id: 'local-left', target: 'local', extra: {}, subject: { kind: 'console', runId: 'r-9' }, output: 'kept', runFailed: false, createdAtMs: 1_000 });

    // The gateway dies: its store goes, then its connection to the chat.
    await firstStore.close();
    chat.dropHeld();
    expect(await inFlight).toMatchObject({ ok: false, recordId: row!.id });

    expect(await next.recoverInterrupted(5_000)).toEqual({ uncertain: 1, failed: 1 });
    expect(await next.history!.get(row!.id)).toMatchObject({ status: 'uncertain', updatedAtMs: 5_000 });
    expect(await next.history!.get('local-left')).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted by a stop of the gateway') });
    expect(await next.history!.earlierSendFor('gh', 'd-1', 0)).toEqual({ id: row!.id, status: 'uncertain' });
    expect(next.failedCount()).toBe(1);

    const again = await next.retry(row!.id);
    expect(again).toEqual({ ok: true, detail: 'sent to telegram 7', recordId: row!.id });
    expect(chat.calls()).toBe(2);
    const retried = await next.history!.get(row!.id);
    expect(retried).toMatchObject({ status: 'delivered', chunksSent: 1 });
    expect(retried!.attempts.map((a) => [a.attempt, a.ok, a.status])).toEqual([[1, true, 200]]);
    expect(await next.history!.earlierSendFor('gh', 'd-1', 0)).toEqual({ id: row!.id, status: 'delivered' });

    expect(await next.retry('local-left')).toMatchObject({ ok: true });
    expect(next.failedCount()).toBe(0);
    expect(await next.loadFailedCount()).toBe(0);
    expect(await next.retry(row!.id)).toEqual({ ok: true, detail: `${row!.id} was already delivered`, recordId: row!.id, alreadyDelivered: true });
  });

  it('two nodes retrying the same failed send at once send it once; the other is told it is being sent', async () => {
    const chat = await startFakeService([{ status: 500, body: { ok: false } }]);
    closers.push(chat.close);
    const url = await postgres().freshDatabase();
    const [a, b] = [service(await openStore(url), telegram(chat.url), tempHome().root, 1), service(await openStore(url), telegram(chat.url), tempHome().root, 1)];
    const failed = await a.deliver({ target: 'telegram:9', output: 'once', subject });
    expect(failed).toMatchObject({ ok: false });
    chat.answer([{ body: { ok: true } }]);
    const results = await Promise.all([a.retry(failed.recordId!), b.retry(failed.recordId!)]);
    const sent = results.filter((result) => result.ok && !('alreadyDelivered' in result));
    expect(sent).toEqual([{ ok: true, detail: 'sent to telegram 9', recordId: failed.recordId }]);
    // The other met the send on its way (or, had it come after it, a delivered record).
    const other = results.find((result) => !sent.includes(result));
    expect([{ ok: false, reason: `${failed.recordId} is being sent now (its first send or another retry)`, recordId: failed.recordId, busy: true },
      { ok: true, detail: `${failed.recordId} was already delivered`, recordId: failed.recordId, alreadyDelivered: true }]).toContainEqual(other);
    expect(chat.calls).toHaveLength(2); // the failed first send and one retry
    expect(await a.history!.get(failed.recordId!)).toMatchObject({ status: 'delivered' });
  });
});
