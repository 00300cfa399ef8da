import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { McpServerState, McpServerStatus } from '../mcp/connection.js';
import type { GatewayEvents } from './events.js';

const mcpStatuses: readonly McpServerStatus[] = ['disabled', 'connecting', 'ready', 'degraded', 'reconnecting', 'recycled', 'failed', 'needs-login'];

export interface GatewayMetrics {
  readonly contentType: string;
  /** The exposition text, read at each scrape. */
  render(): Promise<string>;
  /** Stops listening to the gateway's events. */
  close(): void;
}

/**
 * Prometheus metrics of one gateway (`GET /metrics` on its listener when
 * `platforms.webhook.extra.metrics` is true), counted from the gateway's events, with Node's own
 * (RSS, heap, event-loop delay) under the same `switchboard_` prefix. A registry of its own, not
 * prom-client's global one: two gateways in one process (tests) never mix their figures. Labels
 * are bounded: routes are the configured ones (a request to an unknown route counts as
 * `route="(unknown)"`), origins are reduced to their kind (`webhook`, `job`, `console`, `cli`).
 */
export function createGatewayMetrics(deps: {
  events: GatewayEvents;
  /** Accepted webhook deliveries waiting for a run slot. */
  queueDepth: () => Promise<number>;
  mcpServers: () => ReadonlyArray<Pick<McpServerState, 'name' | 'status'>>;
}): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'switchboard_' });
  const requests = new Counter({ name: 'switchboard_webhook_requests_total', help: 'Webhook requests by route and outcome (accepted, duplicate, ignored, unauthorized, rate_limited, ...).', labelNames: ['route', 'outcome'], registers: [registry] });
  const runs = new Counter({ name: 'switchboard_runs_total', help: 'Finished agent runs by origin kind and status.', labelNames: ['origin', 'status'], registers: [registry] });
  const runSeconds = new Histogram({
    name: 'switchboard_run_duration_seconds', help: 'Agent run durations by origin kind.', labelNames: ['origin'], registers: [registry],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  });
  const deliveries = new Counter({ name: 'switchboard_output_deliveries_total', help: 'Outputs delivered to a target, by target and result (ok or failed).', labelNames: ['target', 'result'], registers: [registry] });
  new Gauge({ name: 'switchboard_run_queue_depth', help: 'Accepted webhook deliveries waiting for a run.', registers: [registry], async collect() { this.set(await deps.queueDepth()); } });
  const inFlight = new Gauge({ name: 'switchboard_runs_in_flight', help: 'Agent runs going on now (webhook, job, console and CLI runs).', registers: [registry] });
  new Gauge({
    name: 'switchboard_mcp_server_status', help: 'MCP servers: 1 on the status each server is in, 0 on the others.', labelNames: ['server', 'status'], registers: [registry],
    collect() {
      this.reset();
      for (const server of deps.mcpServers()) for (const status of mcpStatuses) this.set({ server: server.name, status }, server.status === status ? 1 : 0);
    },
  });

  const originKind = (origin: string) => origin.split(':')[0] ?? origin;
  const listeners = {
    'webhook.received': (record: { route: string; outcome: string }) => requests.inc({ route: record.outcome === 'unknown_route' ? '(unknown)' : record.route, outcome: record.outcome }),
    'run.started': () => inFlight.inc(),
    'run.finished': (result: { origin: string; status: string; startedAtMs: number; finishedAtMs: number }) => {
      inFlight.dec();
      runs.inc({ origin: originKind(result.origin), status: result.status });
      runSeconds.observe({ origin: originKind(result.origin) }, Math.max(0, result.finishedAtMs - result.startedAtMs) / 1000);
    },
    'delivery.finished': (finished: { target: string; result: { ok: boolean } }) => deliveries.inc({ target: finished.target, result: finished.result.ok ? 'ok' : 'failed' }),
  } as const;
  for (const [name, listener] of Object.entries(listeners)) deps.events.on(name as keyof typeof listeners, listener as never);
  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      for (const [name, listener] of Object.entries(listeners)) deps.events.off(name as keyof typeof listeners, listener as never);
      registry.clear();
    },
  };
}
