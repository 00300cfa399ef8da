import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMembership, type Membership } from '../../source/cluster/membership.js';
import { createNodeRegistry } from '../../source/store/pg/nodes.js';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { usePostgres } from '../helpers/cluster.js';
import { waitUntil } from '../helpers/webhooks.js';

/** Cluster membership on a real PostgreSQL: what a node says in its log about the other nodes. */
const postgres = usePostgres();

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

const HEARTBEAT_MS = 100;

/** A node with its own pool, whose config hash the test can change, and its log lines. */
async function node(url: string, id: string, hash: { value: string }) {
  const store = await openPgStore(url);
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString('utf8'))); done(); } }));
  const membership: Membership = createMembership({
    shared: { nodes: createNodeRegistry(store, id, HEARTBEAT_MS), heartbeatMs: HEARTBEAT_MS },
    info: () => ({ host: 'test-host', pid: process.pid, version: 'test', configHash: hash.value, runsInFlight: 0, webhookUrl: null }),
    takeOver: async () => {},
    logger,
  });
  await membership.start();
  cleanups.push(async () => { await membership.stop(); await store.close(); });
  return { lines };
}

describe('cluster membership', () => {
  it('logs once when the nodes that are up run different config.json files, and once when they agree again', async () => {
    const url = await postgres().freshDatabase();
    const hashOfB = { value: 'bbbbbbbbbbbb' };
    const a = await node(url, 'node-a', { value: 'aaaaaaaaaaaa' });
    await node(url, 'node-b', hashOfB);
    const warnings = () => a.lines.filter((line) => line.level === 40 && line.msg.startsWith('Cluster: '));
    await waitUntil(() => warnings().length > 0, 10_000, 'the warning on node a');
    expect(warnings()[0]!.msg).toBe('Cluster: the nodes that are up run different config.json files (node-a aaaaaaaaaaaa, node-b bbbbbbbbbbbb); make them the same');

    hashOfB.value = 'aaaaaaaaaaaa'; // node b's config.json made the same
    await waitUntil(() => a.lines.some((line) => line.msg === 'Cluster: the nodes that are up run the same config.json again'), 10_000, 'the all-clear on node a');
    await new Promise((resolve) => setTimeout(resolve, 5 * HEARTBEAT_MS)); // more heartbeats: nothing said twice
    expect(warnings()).toHaveLength(1);
  });
});
