import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

/**
 * A false death with real processes: a gateway frozen (SIGSTOP) while its run's output is due to a
 * chat, taken for dead and taken over by the other node, then thawed (SIGCONT) with its run still
 * going. The chat gets the message once (docs/cluster.md, "Cost of a false death").
 */
const postgres = usePostgres();
const { running, closers } = useClusterCleanup();

describe('a gateway taken for dead while its run is on its way', () => {
  it('does not post twice when it wakes up: the chat gets one message', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const chat = await startFakeService([{ body: { ok: true, result: { message_id: 1 } } }]); // Telegram's API
    closers.push(() => chat.close());
    // Each run's model answer takes 3 s: the run is still on its way when its node is frozen.
    const model = await startScriptedModel([{ text: 'Hello from the run.', delayMs: 3_000 }], { repeatLast: true });
    closers.push(() => model.close());
    const home = () => preparedHome((config) => {
      config.store = { heartbeat_seconds: 1 };
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      config.platforms!.webhook!.extra!.routes = { chat: { secret: SECRET, prompt: 'Say {action}', deliver: 'telegram:42' } };
      (config.platforms as Record<string, unknown>).telegram = { enabled: true, bot_token: '123:ABC', api_base_url: chat.url };
    });
    const [homeA, homeB] = [home(), home()];
    const a = await startGatewayNode(homeA, url, running); // the node that takes over
    const b = await startGatewayNode(homeB, url, running);
    const idB = readFileSync(path.join(homeB.root, 'node-id'), 'utf8').trim();
    const db = await openPgStore(url);
    closers.push(() => db.close());

    const body = JSON.stringify({ action: 'hello' });
    const posted = await fetch(`${b.url}/webhooks/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'push', 'frozen-1') }, body });
    expect(posted.status).toBe(202);
    await waitUntil(() => model.requests.length === 1, 20_000, 'the run asking the model');
    const { rows: [held] } = await db.query<{ node_id: string }>(`SELECT node_id FROM webhook_deliveries WHERE delivery_id = 'frozen-1'`);
    expect(held!.node_id).toBe(idB);

    b.cli.child.kill('SIGSTOP');
    await waitUntil(() => a.cli.output().includes(`Node ${idB} went silent`), 30_000, 'node A taking over the frozen node');
    b.cli.child.kill('SIGCONT'); // its run goes on: the model's answer is waiting for it

    const settled = await waitUntil(async () => {
      const { rows } = await db.query<{ state: string }>(`SELECT state FROM webhook_deliveries WHERE delivery_id = 'frozen-1'`);
      return rows[0]!.state === 'delivered' ? rows[0] : undefined;
    }, 60_000, 'the delivery delivered');
    expect(settled).toEqual({ state: 'delivered' });
    await waitUntil(() => b.cli.output().includes('another node took it over while this one was silent'), 20_000, 'the woken node saying it no longer holds the delivery');
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // anything late would have arrived by now
    expect(chat.calls).toHaveLength(1);
    expect(model.requests.length).toBeGreaterThanOrEqual(2); // the run ran again where it was taken over: the documented cost
    expect(b.cli.output()).toMatch(/took this node for dead/);
  });
});
