import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../source/store/database.js';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import { startGatedModel } from '../fixtures/gated-model.js';
import { gatewayChild, startedGateway } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


describe('durable run queue across kill -9 of the gateway process', () => {
  it('resumes queued and running deliveries after a SIGKILL; each accepted delivery completes exactly once', async () => {
    const model = await startGatedModel((prompt) => `done ${prompt}`);
    cleanups.push(() => model.close());
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'gated-1' };
      config.platforms!.webhook!.extra = { host: '127.0.0.1', port: 0, max_concurrent_runs: 1, routes: { r: { secret: SECRET, prompt: 'job {n}', deliver: 'local' } } };
    });
    const { gateway: first, url } = await startedGateway(home.root, cleanups);
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const body = JSON.stringify({ n });
      const id = randomUUID();
      const response = await fetch(`${url}/webhooks/r`, { method: 'POST', headers: githubHeaders(SECRET, body, 'push', id), body });
      expect(response.status).toBe(202);
      ids.push(id);
    }
    await waitUntil(() => model.held().length === 1, 20_000, 'the first run to reach the model');
    const store = openStore(home.stateDb);
    cleanups.push(() => store.close());
    const deliveries = createDeliveryStore(store);
    expect(ids.map((id) => deliveries.findByDeliveryId(id)!.state)).toEqual(['running', 'queued', 'queued', 'queued']);

    first.child.kill('SIGKILL');
    const exit = await first.exited;
    expect(exit.code).toBeNull();
    model.setMode('answer');

    const second = gatewayChild(home.root, cleanups);
    await second.waitFor('Webhook listener on', 30_000);
    await waitUntil(() => ids.every((id) => deliveries.findByDeliveryId(id)!.state === 'delivered'), 30_000, 'every delivery after the restart');
    second.child.kill('SIGTERM');
    await second.exited;

    // The interrupted run is the only one the model saw twice; the others ran once, in order.
    expect(model.prompts).toEqual(['job 1', 'job 1', 'job 2', 'job 3', 'job 4']);
    for (const [index, id] of ids.entries()) {
      expect(fs.readFileSync(path.join(home.root, 'deliveries', 'r', `${id}.md`), 'utf8')).toBe(`done job ${index + 1}\n`);
    }
    const log = fs.readFileSync(home.gatewayLog, 'utf8');
    for (const id of ids) expect(log.split('\n').filter((line) => line.includes(`Webhook r delivery ${id}: delivered`))).toHaveLength(1);
    expect(log).toContain('1 interrupted run(s) queued again');
    expect(deliveries.recent({ route: 'r' })).toHaveLength(4);
  });
});
