import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import type { DeliveryRequest } from '../../source/delivery/types.js';
import type { ConfigFile } from '../../source/config/types.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { startFakeService, type FakeReply } from '../fixtures/fake-service.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0)) await close(); });

const subject: DeliveryRequest['subject'] = { kind: 'webhook', route: 'gh', deliveryId: 'd-1', event: 'push' };

async function service(platform: string, settings: (url: string) => Record<string, unknown>, replies?: FakeReply[], retry = { baseDelayMs: 10 }) {
  const fake = await startFakeService(replies);
  closers.push(fake.close);
  const home = tempHome();
  const store = openStore(home.stateDb);
  closers.push(() => store.close());
  const config = { platforms: { [platform]: { enabled: true, ...settings(fake.url) } } } as ConfigFile;
  return { fake, store, ...createDeliveryService({ homeRoot: home.root, logger: pino({ level: 'silent' }), config, history: sqliteBackends(store).outputDeliveries, retry }) };
}

describe('messaging targets against local fake services', () => {
  it('telegram: sendMessage on <base>/bot<token>, forum thread, split at 4096', async () => {
    const { fake, deliver } = await service('telegram', (url) => ({ bot_token: '123:ABC', api_base_url: url }));
    const text = `${'a'.repeat(4000)}\n${'b'.repeat(4000)}\n${'c'.repeat(100)}`;
    expect(await deliver({ target: 'telegram:-100555:77', output: text, subject })).toMatchObject({ ok: true, detail: 'sent to telegram -100555 in 3 parts' });
    expect(fake.calls.map((call) => [call.method, call.path])).toEqual(Array(3).fill(['POST', '/bot123:ABC/sendMessage']));
    expect(fake.json(0)).toEqual({ chat_id: '-100555', text: 'a'.repeat(4000), message_thread_id: 77 });
    expect(fake.json(2)).toEqual({ chat_id: '-100555', text: 'c'.repeat(100), message_thread_id: 77 });
  });

  it('discord: channel messages with the Bot token, home channel, split at 2000', async () => {
    const { fake, deliver } = await service('discord', (url) => ({ bot_token: 'disc-token', api_base_url: url, home_channel: '998877' }));
    expect(await deliver({ target: 'discord', output: 'x'.repeat(2500), subject })).toMatchObject({ ok: true });
    expect(fake.calls.map((call) => call.path)).toEqual(['/api/v10/channels/998877/messages', '/api/v10/channels/998877/messages']);
    expect(fake.calls[0]!.headers.authorization).toBe('Bot disc-token');
    expect(fake.json(0)).toEqual({ content: 'x'.repeat(2000) });
  });

  it('slack: chat.postMessage with the bearer token; ok:false is a failure', async () => {
    const { fake, deliver } = await service('slack', (url) => ({ bot_token: 'xoxb-1', api_base_url: url }), [{ body: { ok: true } }, { body: { ok: false, error: 'channel_not_found' } }]);
    expect(await deliver({ target: 'slack:C123', output: 'hello', subject })).toMatchObject({ ok: true });
    expect(fake.calls[0]!.path).toBe('/api/chat.postMessage');
    expect(fake.calls[0]!.headers.authorization).toBe('Bearer xoxb-1');
    expect(fake.json(0)).toEqual({ channel: 'C123', text: 'hello' });
    expect(await deliver({ target: 'slack:C404', output: 'x', subject })).toMatchObject({ ok: false, reason: 'slack to C404 failed: channel_not_found' });
    expect(fake.calls).toHaveLength(2);
  });

  it('signal: POST /v2/send on the signal-cli REST API', async () => {
    const { fake, deliver } = await service('signal', (url) => ({ api_url: `${url}/`, number: '+4911111' }), [{ status: 201, body: { timestamp: '1' } }]);
    expect(await deliver({ target: 'signal:+4922222', output: 'ping', subject })).toMatchObject({ ok: true });
    expect(fake.calls[0]!.path).toBe('/v2/send');
    expect(fake.json(0)).toEqual({ message: 'ping', number: '+4911111', recipients: ['+4922222'] });
  });

  it('sms: Twilio Messages.json with Basic auth and a form body, split at 1600; bare sms uses the default number', async () => {
    const { fake, deliver } = await service('sms', (url) => ({ account_sid: 'AC42', auth_token: 'tw-secret', from: '+15550001', home_channel: '+15550002', api_base_url: url }), [{ status: 201, body: { sid: 'SM1' } }]);
    expect(await deliver({ target: 'sms', output: 'z'.repeat(2000), subject })).toMatchObject({ ok: true, detail: 'sent to sms +15550002 in 2 parts' });
    expect(fake.calls[0]!.path).toBe('/2010-04-01/Accounts/AC42/Messages.json');
    expect(fake.calls[0]!.headers.authorization).toBe(`Basic ${Buffer.from('AC42:tw-secret').toString('base64')}`);
    expect(fake.calls[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(fake.calls[0]!.body))).toEqual({ To: '+15550002', From: '+15550001', Body: 'z'.repeat(1600) });
  });

  it('says when a run failed and never sends an empty message', async () => {
    const { fake, deliver } = await service('telegram', (url) => ({ bot_token: 't', api_base_url: url }));
    await deliver({ target: 'telegram:1', output: '', subject });
    await deliver({ target: 'telegram:1', output: 'model timeout', failed: true, subject });
    expect(fake.json(0).text).toBe('(no output)');
    expect(fake.json(1).text).toBe('Run failed (webhook gh delivery d-1):\n\nmodel timeout');
  });
});

describe('retries and history', () => {
  it('retries 500, 500 then succeeds, recording every attempt', async () => {
    const { fake, deliver, history } = await service('telegram', (url) => ({ bot_token: 't', api_base_url: url }), [{ status: 500, body: { ok: false } }, { status: 500, body: { ok: false } }, { body: { ok: true } }]);
    const result = await deliver({ target: 'telegram:1', output: 'hi', subject });
    expect(result).toMatchObject({ ok: true });
    expect(fake.calls).toHaveLength(3);
    const record = (await history!.get(result.recordId!))!;
    expect(record).toMatchObject({ status: 'delivered', target: 'telegram:1', chunksTotal: 1, chunksSent: 1, subject });
    expect(record.attempts.map((a) => [a.attempt, a.ok, a.status])).toEqual([[1, false, 500], [2, false, 500], [3, true, 200]]);
  });

  it('honours Retry-After on 429', async () => {
    const { fake, deliver } = await service('discord', (url) => ({ bot_token: 'd', api_base_url: url }), [{ status: 429, headers: { 'retry-after': '1' }, body: { message: 'rate limited' } }, { body: {} }]);
    const result = await deliver({ target: 'discord:1', output: 'hi', subject });
    expect(result.ok).toBe(true);
    expect(fake.calls[1]!.atMs - fake.calls[0]!.atMs).toBeGreaterThanOrEqual(950);
  });

  it('does not retry a 4xx, and gives up after 3 attempts of 5xx', async () => {
    const bad = await service('telegram', (url) => ({ bot_token: 't', api_base_url: url }), [{ status: 400, body: { ok: false, description: 'chat not found' } }]);
    expect(await bad.deliver({ target: 'telegram:9', output: 'x', subject })).toMatchObject({ ok: false, reason: 'telegram to 9 failed: HTTP 400: {"ok":false,"description":"chat not found"}' });
    expect(bad.fake.calls).toHaveLength(1);
    const down = await service('telegram', (url) => ({ bot_token: 't', api_base_url: url }), [{ status: 503 }]);
    expect((await down.deliver({ target: 'telegram:9', output: 'x', subject })).ok).toBe(false);
    expect(down.fake.calls).toHaveLength(3);
  });

  it('retries network errors', async () => {
    const { deliver, fake, history } = await service('slack', (url) => ({ bot_token: 'x', api_base_url: url }));
    await fake.close();
    const result = await deliver({ target: 'slack:C1', output: 'x', subject });
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/^slack to C1 failed: fetch failed \(ECONNREFUSED\)$/) });
    expect((await history!.get(result.recordId!))!.attempts).toHaveLength(3);
  });

  it('a retry resumes from the first part that did not go out', async () => {
    const { fake, deliver, retry, history } = await service('discord', (url) => ({ bot_token: 'd', api_base_url: url }), [{ body: {} }, { status: 502 }, { status: 502 }, { status: 502 }, { body: {} }]);
    const text = `${'1'.repeat(2000)}${'2'.repeat(2000)}${'3'.repeat(100)}`;
    const first = await deliver({ target: 'discord:5', output: text, subject });
    expect(first).toMatchObject({ ok: false, reason: expect.stringContaining('(part 2 of 3) failed: HTTP 502') });
    expect(await history!.get(first.recordId!)).toMatchObject({ status: 'failed', chunksSent: 1, chunksTotal: 3 });
    const again = await retry(first.recordId!);
    expect(again).toMatchObject({ ok: true, detail: 'sent to discord 5 in 3 parts' });
    expect(fake.calls.map((call) => (JSON.parse(call.body) as { content: string }).content[0])).toEqual(['1', '2', '2', '2', '2', '3']);
    expect(await history!.get(first.recordId!)).toMatchObject({ status: 'delivered', chunksSent: 3 });
    expect(await retry(first.recordId!)).toEqual({ ok: true, detail: `${first.recordId} was already delivered`, recordId: first.recordId, alreadyDelivered: true });
  });

  it('on SQLite a repeatable send is on record in this process at once and commits with the next write, not in a commit of its own', async () => {
    const { deliver, history, store } = await service('telegram', (url) => ({ bot_token: 't', api_base_url: url }));
    store.setGrouping(true); // as in a running gateway: the writes of a turn share a commit
    const otherProcess = new DatabaseSync(store.file, { readOnly: true });
    closers.push(() => otherProcess.close());
    const onDisk = (id: string) => otherProcess.prepare('SELECT status FROM output_deliveries WHERE id = ?').get(id);

    const sent = await deliver({ target: 'log', output: 'to the log', subject });
    expect(await history!.get(sent.recordId!)).toMatchObject({ status: 'delivered', target: 'log' }); // this process reads it now
    expect(onDisk(sent.recordId!)).toBeUndefined(); // deliver() did not wait for a commit
    await store.committed(); // the caller's next write (a webhook's final state) waits for this commit
    expect(onDisk(sent.recordId!)).toEqual({ status: 'delivered' });
  });
});
