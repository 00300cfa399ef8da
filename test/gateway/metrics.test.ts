import { describe, expect, it } from 'vitest';
import { createGatewayEvents } from '../../source/gateway/events.js';
import { createGatewayMetrics } from '../../source/gateway/metrics.js';
import type { McpServerState } from '../../source/mcp/connection.js';

/** The value of one sample line (`name{labels} value`) of the exposition text. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('gateway metrics', () => {
  it('counts webhook outcomes, runs and deliveries from the events, and reads gauges at each scrape', async () => {
    const events = createGatewayEvents();
    let queued = 3;
    const servers: McpServerState[] = [{ name: 'fs', status: 'ready', transport: 'stdio', updatedAtMs: 0 }];
    const metrics = createGatewayMetrics({ events, queueDepth: async () => queued, mcpServers: () => servers });
    const request = { event: 'push', deliveryId: 'd', status: 202, latencyMs: 1, atMs: 0 };
    events.emit('webhook.received', { ...request, route: 'gh', outcome: 'accepted' });
    events.emit('webhook.received', { ...request, route: 'gh', outcome: 'accepted' });
    events.emit('webhook.received', { ...request, route: 'gh', outcome: 'unauthorized', status: 401 });
    // A name nobody configured must not become a label of its own (any sender can make those up).
    events.emit('webhook.received', { ...request, route: 'made-up-by-a-scanner', outcome: 'unknown_route', status: 404 });
    for (const runId of ['r', 'r2', 'r3']) events.emit('run.started', { runId, origin: 'webhook:gh', prompt: 'p', atMs: 1_000 });
    events.emit('run.finished', { runId: 'r', origin: 'webhook:gh', status: 'ok', output: '', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs: 1_000, finishedAtMs: 1_300 });
    events.emit('delivery.finished', { target: 'github', subject: { kind: 'console', runId: 'r' }, result: { ok: false, reason: 'HTTP 502' } });

    let text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain/);
    expect(sample(text, 'switchboard_webhook_requests_total{route="gh",outcome="accepted"}')).toBe(2);
    expect(sample(text, 'switchboard_webhook_requests_total{route="gh",outcome="unauthorized"}')).toBe(1);
    expect(sample(text, 'switchboard_webhook_requests_total{route="(unknown)",outcome="unknown_route"}')).toBe(1);
    expect(text).not.toContain('made-up-by-a-scanner');
    expect(sample(text, 'switchboard_runs_total{origin="webhook",status="ok"}')).toBe(1);
    expect(sample(text, 'switchboard_run_duration_seconds_sum{origin="webhook"}')).toBe(0.3);
    expect(sample(text, 'switchboard_run_duration_seconds_bucket{le="0.5",origin="webhook"}')).toBe(1);
    expect(sample(text, 'switchboard_run_duration_seconds_bucket{le="0.25",origin="webhook"}')).toBe(0);
    expect(sample(text, 'switchboard_output_deliveries_total{target="github",result="failed"}')).toBe(1);
    expect(sample(text, 'switchboard_run_queue_depth')).toBe(3);
    expect(sample(text, 'switchboard_runs_in_flight')).toBe(2);
    expect(sample(text, 'switchboard_mcp_server_status{server="fs",status="ready"}')).toBe(1);
    expect(sample(text, 'switchboard_mcp_server_status{server="fs",status="failed"}')).toBe(0);
    expect(sample(text, 'switchboard_process_resident_memory_bytes')).toBeGreaterThan(0);

    queued = 0;
    servers[0] = { ...servers[0]!, status: 'failed' };
    text = await metrics.render();
    expect(sample(text, 'switchboard_run_queue_depth')).toBe(0);
    expect(sample(text, 'switchboard_mcp_server_status{server="fs",status="failed"}')).toBe(1);
    expect(sample(text, 'switchboard_mcp_server_status{server="fs",status="ready"}')).toBe(0);

    // Closed: events no longer count.
    metrics.close();
    expect(events.listenerCount('webhook.received')).toBe(0);
  });
});
