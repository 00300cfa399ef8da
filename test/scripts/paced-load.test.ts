import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pacedLoad, percentile } from '../../scripts/paced-load.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers 202 after `delayMs`, recording when each request arrived. */
async function server(delayMs = 0): Promise<{ url: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  const instance = http.createServer((request, response) => {
    arrivals.push(performance.now());
    request.resume();
    request.on('end', () => setTimeout(() => response.writeHead(202).end('{}'), delayMs));
  });
  servers.push(instance);
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(instance.address() as AddressInfo).port}`, arrivals };
}

const request = () => ({ path: '/webhooks/x', headers: { 'content-type': 'application/json' }, body: '{}' });

describe('scripts/paced-load', () => {
  it('spreads the requests over the duration (never a burst) and round-robin over the targets', async () => {
    const [a, b] = [await server(), await server()];
    const result = await pacedLoad({ urls: [a.url, b.url], rate: 100, durationS: 1, connections: 4, request });
    expect(result.statuses.get(202)).toBe(100);
    expect([a.arrivals.length, b.arrivals.length]).toEqual([50, 50]);
    // Request 99 is due 990 ms after request 0 and cannot leave earlier (the first may arrive late, as
    // it opens a connection); a once-a-second burst would send all 100 within a few ms.
    const all = [...a.arrivals, ...b.arrivals].sort((x, y) => x - y);
    expect(all.at(-1)! - all[0]!).toBeGreaterThan(900);
  });

  it('counts latency from when each request was due, so a server that falls behind shows its whole backlog', async () => {
    // One connection, answers after 20 ms, requests due every 10 ms: the queue grows by one every 20 ms.
    const slow = await server(20);
    const result = await pacedLoad({ urls: [slow.url], rate: 100, durationS: 0.5, connections: 1, request });
    expect(result.latenciesMs).toHaveLength(50);
    const sorted = [...result.latenciesMs].sort((x, y) => x - y);
    // The last request waits behind about 25 others' 20 ms each: far more than one answer's 20 ms.
    expect(percentile(sorted, 99)).toBeGreaterThan(300);
    expect(sorted[0]).toBeGreaterThanOrEqual(20);
    expect(result.sentLatenciesMs.every((ms, index) => ms <= result.latenciesMs[index]! + 1)).toBe(true);
  });
});
