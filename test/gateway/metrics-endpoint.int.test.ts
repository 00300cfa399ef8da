import { describe, expect, it } from 'vitest';
import { preparedHome, startHost } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const withRoute = (metrics?: boolean) => preparedHome((config) => {
  config.platforms!.webhook!.extra!.host = '127.0.0.1';
  config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'PR {number}', deliver: 'log' } };
  if (metrics !== undefined) config.platforms!.webhook!.extra!.metrics = metrics;
});

describe('GET /metrics', () => {
  it('serves Prometheus text on the listener when platforms.webhook.extra.metrics is on: requests, runs, deliveries, queue', async () => {
    const host = await startHost(withRoute(true));
    const url = host.gateway.snapshot().webhook.url!;
    const post = (secret: string) => {
      const body = JSON.stringify({ number: 7 });
      return fetch(`${url}/webhooks/gh`, { method: 'POST', headers: githubHeaders(secret, body, 'pull_request'), body });
    };
    expect((await post(SECRET)).status).toBe(202);
    expect((await post('wrong-secret-000000')).status).toBe(401);
    await waitUntil(async () => (await host.gateway.webhooks.counts())?.delivered === 1);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('switchboard_webhook_requests_total{route="gh",outcome="accepted"} 1');
    expect(text).toContain('switchboard_webhook_requests_total{route="gh",outcome="unauthorized"} 1');
    expect(text).toContain('switchboard_runs_total{origin="webhook",status="ok"} 1');
    expect(text).toContain('switchboard_output_deliveries_total{target="log",result="ok"} 1');
    expect(text).toContain('switchboard_run_queue_depth 0');
    expect(text).toContain('switchboard_runs_in_flight 0');
    expect(text).toMatch(/switchboard_process_resident_memory_bytes \d+/);
  });

  it('is not there unless turned on', async () => {
    const host = await startHost(withRoute());
    const response = await fetch(`${host.gateway.snapshot().webhook.url}/metrics`);
    expect(response.status).toBe(404);
  });
});
