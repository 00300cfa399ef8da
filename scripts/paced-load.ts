// An open-loop load at a steady rate, for latency at a given rate (p99 at 500 req/s). autocannon's
// rate limit is not that: each connection sends its quota for the second back to back when the
// second starts, then waits (node_modules/autocannon/lib/httpClient.js, `reqsMadeThisSecond`), so
// "500 req/s over 30 connections" is a burst of 500 requests, 30 at a time, once a second, and its
// latencies are mostly the burst's own queue. Here request i is due at start + i / rate, whatever
// the answers before it; its latency counts from that moment (as wrk2 does: a server that stalls
// cannot hide it by delaying the requests behind), so the client's own lateness counts against
// the server, never for it. `lateMs` says how late the client itself sent, and `sentLatenciesMs`
// counts from the moment the client issued each request instead, to see the client's own share.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface PacedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface PacedResult {
  /** Per answered request, from when it was due to the end of its answer; ascending. */
  latenciesMs: number[];
  /** Per answered request, from when the client issued it (it may still wait for a connection) to the end of its answer; ascending. */
  sentLatenciesMs: number[];
  /** Answers by status code. */
  statuses: Map<number, number>;
  /** Requests that got no answer (connection errors). */
  errors: number;
  /** How late the client sent, from when each request was due: p99 and max. */
  lateMs: { p99: number; max: number };
}

/**
 * `rate` requests a second for `durationS` seconds, spread round-robin over `urls` (base URLs), over
 * at most `connections` keep-alive connections in all (split over the URLs).
 */
export async function pacedLoad(options: { urls: string[]; rate: number; durationS: number; connections: number; request: () => PacedRequest }): Promise<PacedResult> {
  const { urls, rate, durationS } = options;
  const total = Math.round(rate * durationS);
  const intervalMs = 1000 / rate;
  const agents = urls.map((_, index) => new http.Agent({ keepAlive: true, maxSockets: Math.max(1, Math.floor(options.connections / urls.length) + (index < options.connections % urls.length ? 1 : 0)) }));
  const targets = urls.map((url) => new URL(url));
  const latenciesMs: number[] = [];
  const sentLatenciesMs: number[] = [];
  const late: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let settled = 0;
  let next = 0;
  const start = performance.now() + 20;

  return new Promise<PacedResult>((resolve) => {
    const finish = () => {
      for (const agent of agents) agent.destroy();
      const ascending = (values: number[]) => values.sort((a, b) => a - b);
      ascending(late);
      resolve({ latenciesMs: ascending(latenciesMs), sentLatenciesMs: ascending(sentLatenciesMs), statuses, errors, lateMs: { p99: percentile(late, 99), max: late.at(-1) ?? 0 } });
    };
    const settle = () => {
      settled += 1;
      if (settled === total) finish();
    };
    const send = (index: number, due: number) => {
      const target = targets[index % targets.length]!;
      const { path, headers, body } = options.request();
      const sent = performance.now();
      late.push(sent - due);
      const request = http.request({
        agent: agents[index % agents.length], host: target.hostname, port: target.port, method: 'POST', path,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      }, (response) => {
        response.resume();
        response.on('end', () => {
          const answered = performance.now();
          latenciesMs.push(answered - due);
          sentLatenciesMs.push(answered - sent);
          statuses.set(response.statusCode!, (statuses.get(response.statusCode!) ?? 0) + 1);
          settle();
        });
      });
      request.on('error', () => {
        errors += 1;
        settle();
      });
      request.end(body);
    };
    const pump = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        send(next, start + next * intervalMs);
        next += 1;
      }
      if (next < total) setTimeout(pump, Math.max(0, start + next * intervalMs - performance.now()));
    };
    setTimeout(pump, 20);
  });
}

/** The p-th percentile (nearest rank) of ascending values; 0 for none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
