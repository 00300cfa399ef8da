import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import { createConsoleModel } from '../../source/ui/console-model.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { runCli } from '../helpers/cli.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

/**
 * `switchboard deliveries retry` in cluster mode: the failed output of a webhook posted to node A is
 * sent again through node B, once, and both nodes (their CLIs, a console attached to A) see it delivered.
 */
const postgres = usePostgres();
const { running, closers } = useClusterCleanup();

interface DeliveryRow { id: string; status: string; subject: { kind: string; deliveryId?: string }; attempts: unknown[] }

const TELEGRAM_OK = { body: { ok: true, result: { message_id: 1 } } };
const TELEGRAM_DOWN = { status: 500, body: { ok: false, description: 'Internal Server Error' } };

describe('deliveries retry across nodes', () => {
  it('a send that failed for a webhook posted to node A, retried through node B, goes out once, and both nodes\' CLIs and A\'s console see it delivered', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const chat = await startFakeService([TELEGRAM_DOWN]); // Telegram's API, down at first
    closers.push(() => chat.close());
    // No model configured: the run is a dry run, its output still goes to the chat.
    const [homeA, homeB] = [0, 1].map(() => preparedHome((config) => {
      config.store = { heartbeat_seconds: 1 };
      config.platforms!.webhook!.extra!.routes = { chat: { secret: SECRET, prompt: 'Say {action}', deliver: 'telegram:42' } };
      (config.platforms as Record<string, unknown>).telegram = { enabled: true, bot_token: '123:ABC', api_base_url: chat.url };
    }));
    const nodeA = await startGatewayNode(homeA!, url, running);
    await startGatewayNode(homeB!, url, running);
    const throughA = (...args: string[]) => runCli([...args, '--home', homeA!.root]);
    const throughB = (...args: string[]) => runCli([...args, '--home', homeB!.root]);
    const [idA, idB] = [homeA!, homeB!].map((home) => readFileSync(path.join(home.root, 'node-id'), 'utf8').trim());
    // The console's own model on node A: the snapshot, the events, and D's failed ids it counts by.
    const link = await attachLink({ socketPath: homeA!.controlSocket });
    closers.push(() => link.close());
    const consoleA = createConsoleModel({ link, flushMs: 5 });
    closers.push(() => consoleA.dispose());
    await consoleA.ready();
    const rowOnA = () => consoleA.getState().webhooks.find((each) => each.deliveryId === 'retry-1');
    /** The failed count a console attaching to each node now starts from (its snapshot). */
    const failedInSnapshots = () => Promise.all([homeA!, homeB!].map(async (home) => {
      const attached = await attachLink({ socketPath: home.controlSocket });
      try {
        return await new Promise<number>((resolve) => { attached.subscribe({ onSnapshot: (state) => resolve(state.failedDeliveries), onEvent: () => {} }); });
      } finally {
        await attached.close();
      }
    }));

    const body = JSON.stringify({ action: 'hello' });
    const posted = await fetch(`${nodeA.url}/webhooks/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'push', 'retry-1') }, body });
    expect(posted.status).toBe(202);
    const ranOn = (await waitUntil(async () => /State: +delivery_failed on node (\S+)\n/.exec((await throughA('webhook', 'show', 'retry-1')).stdout), 30_000, 'the webhook delivery to fail'))[1]!;
    expect([idA, idB]).toContain(ranOn);
    await waitUntil(() => rowOnA()?.runState === 'delivery_failed' && consoleA.getState().failedDeliveries === 1, 5_000, 'the console on node A to count the failure');
    // A console attaching to either node starts from the cluster's count, whichever node ran it.
    await waitUntil(async () => (await failedInSnapshots()).every((count) => count === 1), 10_000, 'both nodes\' snapshots to count the failure');
    const failedSends = chat.calls.length; // the send's own tries, each answered 500
    expect(failedSends).toBeGreaterThan(0);

    const failed = JSON.parse((await throughB('deliveries', 'list', '--failed', '--json')).stdout) as DeliveryRow[];
    expect(failed).toHaveLength(1);
    const [send] = failed;
    expect(send!.subject).toMatchObject({ kind: 'webhook', deliveryId: 'retry-1' });

    chat.answer([TELEGRAM_OK]);
    const retried = await throughB('deliveries', 'retry', send!.id.slice(0, 8));
    expect([retried.code, retried.stderr]).toEqual([0, 'Delivered: sent to telegram 42\n']);
    expect(chat.calls).toHaveLength(failedSends + 1);
    expect(chat.json(failedSends)).toMatchObject({ chat_id: '42' });

    // The shared record says it on both nodes, with the first failure kept.
    for (const through of [throughA, throughB]) {
      const shown = (await through('webhook', 'show', 'retry-1')).stdout;
      expect(shown).toContain(`State:    delivered on node ${ranOn}\n`); // the node that ran it, not the one that retried
      expect(shown).toMatch(/Target: +telegram:42 - sent to telegram 42 \(delivered on retry; before: telegram to 42 failed: HTTP 500: .*\)\n/);
      expect((await through('deliveries', 'list', '--failed')).stderr).toBe('No failed deliveries.\n');
    }

    // The console attached to node A hears of node B's retry: the row and the header's failed count.
    await waitUntil(() => {
      const row = rowOnA();
      return row?.runState === 'delivered' && row.delivery?.ok === true && consoleA.getState().failedDeliveries === 0;
    }, 10_000, 'the console on node A to show the retried delivery');
    expect(rowOnA()).toMatchObject({ runNode: ranOn, delivery: { ok: true, detail: expect.stringMatching(/^sent to telegram 42 \(delivered on retry; before: /) } });
    await waitUntil(async () => (await failedInSnapshots()).every((count) => count === 0), 10_000, 'both nodes\' snapshots to count the retry');

    // Delivered now: a second retry, through either node, sends nothing.
    for (const through of [throughA, throughB]) {
      const again = await through('deliveries', 'retry', send!.id);
      expect([again.code, again.stderr]).toEqual([0, `Nothing to retry: ${send!.id} was already delivered\n`]);
    }
    expect(chat.calls).toHaveLength(failedSends + 1);
  });
});
