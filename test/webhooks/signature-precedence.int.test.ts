import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import { signStandard } from '../../source/webhooks/signature.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubHeaders, makeWebhookGateway, SECRET } from '../helpers/webhooks.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

describe('signature precedence at the intake (issue #18 item 24)', () => {
  it('a good GitHub signature with a bad Standard Webhooks one is refused 401 and nothing is queued', async () => {
    const made = makeWebhookGateway(tempHome(), { routes: { hook: { secret: SECRET } } });
    cleanups.push(() => made.store.close(), () => made.gateway.stop('test over'));
    await made.gateway.start();
    const body = JSON.stringify({ action: 'opened' });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { ...githubHeaders(SECRET, body, 'pull_request', randomUUID()), 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signStandard('not-the-secret', 'msg_1', ts, body) };
    const mixed = await made.app.inject({ method: 'POST', url: '/webhooks/hook', payload: body, headers });
    expect(mixed.statusCode).toBe(401);
    expect(mixed.json()).toMatchObject({ error: 'Invalid signature', route: 'hook' });
    expect(createDeliveryStore(made.store).recent()).toEqual([]);
    const honest = await made.app.inject({ method: 'POST', url: '/webhooks/hook', payload: body, headers: { ...headers, 'webhook-signature': signStandard(SECRET, 'msg_1', ts, body) } });
    expect(honest.statusCode).toBe(202);
  });
});
