import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../source/config/types.js';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import type { DeliveryRequest } from '../../source/delivery/types.js';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubHeaders, makeWebhookGateway, SECRET, waitUntil } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

const subject: DeliveryRequest['subject'] = { kind: 'webhook', route: 'chat', deliveryId: 'd-1', event: 'push' };

async function fakePlatform(platform: string, settings: (url: string) => Record<string, unknown>) {
  const fake = await startFakeService([{ body: { ok: true } }]);
  closers.push(fake.close);
  const config = { platforms: { [platform]: { enabled: true, ...settings(fake.url) } } } as ConfigFile;
  const { deliver } = createDeliveryService({ homeRoot: tempHome().root, logger: pino({ level: 'silent' }), config });
  return { fake, deliver };
}

describe('deliver_extra thread_id (issue #18 item 17)', () => {
  it('telegram: message_thread_id from deliver_extra, as a number', async () => {
    const { fake, deliver } = await fakePlatform('telegram', (url) => ({ bot_token: '1:A', api_base_url: url }));
    expect(await deliver({ target: 'telegram:-100555', extra: { thread_id: '77' }, output: 'hi', subject })).toMatchObject({ ok: true });
    expect(fake.json(0)).toEqual({ chat_id: '-100555', text: 'hi', message_thread_id: 77 });
  });

  it('slack: thread_ts', async () => {
    const { fake, deliver } = await fakePlatform('slack', (url) => ({ bot_token: 'xoxb-1', api_base_url: url }));
    expect(await deliver({ target: 'slack:C123', extra: { thread_id: '1712345678.000100' }, output: 'hi', subject })).toMatchObject({ ok: true });
    expect(fake.json(0)).toEqual({ channel: 'C123', text: 'hi', thread_ts: '1712345678.000100' });
  });

  it('discord: the messages go into the thread (a channel of its own)', async () => {
    const { fake, deliver } = await fakePlatform('discord', (url) => ({ bot_token: 'd', api_base_url: url, home_channel: '998877' }));
    expect(await deliver({ target: 'discord', extra: { thread_id: 1234567890123 }, output: 'hi', subject })).toMatchObject({ ok: true });
    expect(fake.calls[0]!.path).toBe('/api/v10/channels/1234567890123/messages');
  });

  it('a platform without threads refuses thread_id', async () => {
    const { fake, deliver } = await fakePlatform('signal', (url) => ({ api_url: url, number: '+4911111' }));
    expect(await deliver({ target: 'signal:+4922222', extra: { thread_id: '5' }, output: 'hi', subject }))
      .toMatchObject({ ok: false, reason: 'deliver_extra.thread_id: signal has no threads (telegram, slack and discord do)' });
    expect(fake.calls).toHaveLength(0);
  });
});

describe('deliver_extra types through a webhook route (issue #18 item 17)', () => {
  it('numbers and booleans stay typed; a lone placeholder takes the payload value\'s type; telegram gets the thread', async () => {
    const fake = await startFakeService([{ body: { ok: true } }]);
    closers.push(fake.close);
    const home = tempHome();
    const made = makeWebhookGateway(home, {
      routes: { chat: { secret: SECRET, prompt: 'say hi', deliver: 'telegram', deliver_extra: { chat_id: -100555, thread_id: '{message.thread}', pr_number: '{number}', silent: true, label: 'PR {number}' } } },
      edit: (config) => { config.platforms!.telegram = { enabled: true, bot_token: '1:A', api_base_url: fake.url } as never; },
    });
    closers.push(() => made.store.close(), () => made.gateway.stop('test over'));
    await made.gateway.start();
    const body = JSON.stringify({ number: 42, message: { thread: 77 } });
    const deliveryId = randomUUID();
    const response = await made.app.inject({ method: 'POST', url: '/webhooks/chat', payload: body, headers: githubHeaders(SECRET, body, 'push', deliveryId) });
    expect(response.statusCode).toBe(202);
    const deliveries = createDeliveryStore(made.store);
    await waitUntil(() => deliveries.findByDeliveryId(deliveryId)?.state === 'delivered', 20_000, 'the delivery');
    expect(deliveries.findByDeliveryId(deliveryId)!.targetExtra).toEqual({ chat_id: -100555, thread_id: 77, pr_number: 42, silent: true, label: 'PR 42' });
    expect(fake.json(0)).toMatchObject({ chat_id: '-100555', message_thread_id: 77 });
  });
});
