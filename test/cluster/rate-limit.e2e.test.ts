import { describe, expect, it } from 'vitest';
import type { HomeLayout } from '../../source/config/home.js';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { preparedHome } from '../helpers/host.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { githubHeaders, SECRET } from '../helpers/webhooks.js';

/**
 * Cluster mode (issue #19): a route's `rate_limit` holds for the cluster, not per node. Three real
 * `switchboard gateway` processes share one real PostgreSQL (started from node_modules by this file).
 */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

const LIMIT = 20;
const limitedHome = () => preparedHome((config) => {
  config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Review {pull_request.title}', deliver: 'log', rate_limit: LIMIT } };
});

async function startNode(home: HomeLayout, databaseUrl: string): Promise<string> {
  return (await startGatewayNode(home, databaseUrl, running)).url;
}

async function post(url: string, deliveryId: string): Promise<{ status: number; retryAfter: string | null; body: { error?: string; message?: string } }> {
  const body = JSON.stringify({ action: 'opened', pull_request: { title: `PR ${deliveryId}` } });
  const response = await fetch(`${url}/webhooks/gh`, { method: 'POST', headers: githubHeaders(SECRET, body, 'pull_request', deliveryId), body });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() as { error?: string } };
}

describe('rate limits across three gateways on one PostgreSQL', () => {
  it('admit rate_limit requests a minute on a route for the cluster: 60 sent round-robin, 20 accepted', { timeout: 180_000 }, async () => {
    const url = await postgres().freshDatabase();
    const nodes = await Promise.all([1, 2, 3].map(() => startNode(limitedHome(), url)));
    const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => post(nodes[i % 3]!, `pr-${i}`)));

    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(LIMIT);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(2 * LIMIT);
    for (const answer of refused) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      // 61 at most: the wait is counted from this node's clock read, and a stamp another node made a
      // few ms later (the stamps take the latest time) can need 60.005 s, rounded up.
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(61);
      expect(answer.body.message).toContain(`Route "gh": more than ${LIMIT} requests in 60 s`);
    }
    const db = await openPgStore(url);
    closers.push(() => db.close());
    const { rows: [accepted] } = await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE route = 'gh'`);
    expect(accepted!.n).toBe(LIMIT);
  });
});
