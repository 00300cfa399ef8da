import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../source/store/database.js';
import { gatewayChild, startedGateway } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


/** Posts one signed webhook; resolves with its id when answered 202, undefined when refused or cut off. */
async function post(url: string, n: number): Promise<string | undefined> {
  const body = JSON.stringify({ n });
  const id = randomUUID();
  try {
    const response = await fetch(`${url}/webhooks/r`, { method: 'POST', headers: githubHeaders(SECRET, body, 'push', id), body });
    await response.arrayBuffer();
    return response.status === 202 ? id : undefined;
  } catch {
    return undefined; // the gateway was killed with this request in flight: never told accepted
  }
}

describe('a burst of webhooks and a kill -9 of the gateway (the intake journal)', () => {
  it('every webhook answered 202 is in state.db once after the restart and runs once; what the journal held is queued at start', { timeout: 120_000 }, async () => {
    const home = preparedHome((config) => { // dry-run model
      config.platforms!.webhook!.extra = { host: '127.0.0.1', port: 0, rate_limit: 1_000_000, routes: { r: { secret: SECRET, prompt: 'job {n}', deliver: 'log' } } };
    });
    const { gateway: first, url } = await startedGateway(home.root, cleanups);
    // Waves of 100 at once, back to back (the journal moves into state.db only after 100 ms without
    // a burst); the gateway is killed in the middle of the fifth.
    const accepted: string[] = [];
    let n = 0;
    for (let wave = 0; wave < 5; wave++) {
      const sent = Array.from({ length: 100 }, () => post(url, ++n));
      if (wave === 4) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        first.child.kill('SIGKILL');
      }
      for (const id of await Promise.all(sent)) if (id) accepted.push(id);
    }
    await first.exited;
    expect(accepted.length, 'webhooks answered 202 before the kill (four waves of 100, part of the fifth)').toBeGreaterThanOrEqual(400);

    const second = gatewayChild(home.root, cleanups);
    await second.waitFor(/Webhook listener on http:\/\/\S+ /, 30_000);
    expect(second.output(), 'the journal held webhooks at the kill').toMatch(/\d+ webhook\(s\) accepted before the gateway stopped were still in the intake journal: queued now/);

    const store = openStore(home.stateDb);
    cleanups.push(() => store.close());
    const rows = () => store.db.prepare('SELECT delivery_id AS deliveryId, state FROM webhook_deliveries').all() as Array<{ deliveryId: string; state: string }>;
    await waitUntil(() => rows().filter((row) => row.state === 'delivered').length >= accepted.length, 60_000, 'every accepted webhook run and delivered');
    const byId = new Map<string, number>();
    for (const row of rows()) byId.set(row.deliveryId, (byId.get(row.deliveryId) ?? 0) + 1);
    for (const id of accepted) expect(byId.get(id), id).toBe(1);
    // Each ran once: one run record per delivery, none left running.
    const runs = store.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE origin LIKE 'webhook:%'").get() as { n: number };
    expect(runs.n).toBe(rows().length);
    expect(rows().every((row) => row.state === 'delivered')).toBe(true);
  });
});
