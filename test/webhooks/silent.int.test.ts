import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutputDeliveryStore } from '../../source/store/output-deliveries.js';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import type { WebhookCompleted } from '../../source/webhooks/types.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubHeaders, makeWebhookGateway, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

describe('[SILENT] on a webhook run (issue #18 item 18)', () => {
  it('is not delivered and is recorded as silent with the reason, like a job', async () => {
    const home = tempHome();
    const made = makeWebhookGateway(home, { routes: { quiet: { secret: SECRET, prompt: 'Check {thing}; answer [SILENT] when there is nothing to say', deliver: 'local' } } });
    cleanups.push(() => made.store.close(), () => made.gateway.stop('test over'));
    const completed: WebhookCompleted[] = [];
    made.gateway.events.on('webhook.completed', (event) => completed.push(event));
    await made.gateway.start();
    const body = JSON.stringify({ thing: 'the queue' });
    const deliveryId = randomUUID();
    expect((await made.app.inject({ method: 'POST', url: '/webhooks/quiet', payload: body, headers: githubHeaders(SECRET, body, 'push', deliveryId) })).statusCode).toBe(202);

    await waitUntil(() => completed.length === 1, 20_000, 'the run');
    const record = createDeliveryStore(made.store).findByDeliveryId(deliveryId)!;
    expect(record).toMatchObject({ state: 'silent', runStatus: 'ok', deliveryDetail: 'the answer contains [SILENT]: not delivered' });
    expect(record.output).toContain('[SILENT]');
    expect(completed[0]).toMatchObject({ state: 'silent', delivery: { ok: true, detail: 'the answer contains [SILENT]: not delivered' } });
    expect(fs.existsSync(path.join(home.root, 'deliveries', 'quiet'))).toBe(false);
    expect(createOutputDeliveryStore(made.store).recent({ limit: 10 })).toEqual([]);
    expect(await made.gateway.webhooks.counts()).toMatchObject({ silent: 1, delivered: 0 });
  });
});
