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

  it('forgets nodes gone for good (stopped or taken over 72 hours ago), and only those', async () => {
    const url = await postgres().freshDatabase();
    const db = await openPgStore(url);
    cleanups.push(() => db.close());
    const hour = 3_600_000;
    const at = Date.now();
    const row = (id: string, hoursAgo: number, how: 'stopped' | 'taken' | 'down') => db.query(`INSERT INTO nodes (id, host, pid, version, config_hash,
      runs_in_flight, started_at_ms, heartbeat_at_ms, stopped_at_ms, taken_over_by, taken_over_at_ms) VALUES ($1, 'h', 1, 'v', 'aaaaaaaaaaaa', 0, 0, $2, $3, $4, $5)`,
    [id, at - (hoursAgo + 1) * hour, how === 'stopped' ? at - hoursAgo * hour : null, how === 'taken' ? 'node-x' : null, how === 'taken' ? at - hoursAgo * hour : null]);
    await row('stopped-long-ago', 73, 'stopped');
    await row('taken-long-ago', 100, 'taken');
    await row('stopped-yesterday', 24, 'stopped');
    await row('taken-yesterday', 24, 'taken');
    // Silent for days but never taken over: node a takes its work over now, and it stays in sight.
    await row('down-untaken', 100, 'down');
    const a = await node(url, 'node-a', { value: 'aaaaaaaaaaaa' });
    const forgotten = () => a.lines.map((line) => line.msg).filter((msg) => msg.includes('left the nodes table')).sort();
    await waitUntil(() => forgotten().length === 2, 10_000, 'two nodes forgotten');
    expect(forgotten()).toEqual([
      'Cluster: node stopped-long-ago left the nodes table (stopped or taken over 72 h ago); it joins again if it comes back',
      'Cluster: node taken-long-ago left the nodes table (stopped or taken over 72 h ago); it joins again if it comes back',
    ]);
    await waitUntil(async () => (await db.query(`SELECT 1 FROM nodes WHERE id = 'down-untaken' AND taken_over_by = 'node-a'`)).rowCount === 1, 10_000, 'the takeover');
    const { rows } = await db.query<{ id: string }>('SELECT id FROM nodes ORDER BY id');
    expect(rows.map((each) => each.id)).toEqual(['down-untaken', 'node-a', 'stopped-yesterday', 'taken-yesterday']);
  });

  it('lists a node up but late once a heartbeat is overdue (1.5 beats), and down after 3', async () => {
    const url = await postgres().freshDatabase();
    const db = await openPgStore(url);
    cleanups.push(() => db.close());
    const beat = 10_000;
    let clock = 1_000_000;
    const registry = (id: string) => createNodeRegistry(db, id, beat, () => clock);
    const info = { host: 'h', pid: 1, version: 'v', configHash: 'aaaaaaaaaaaa', runsInFlight: 0, webhookUrl: null };
    await registry('node-a').join(info);
    await registry('node-b').join(info);
    const states = async () => (await registry('node-a').list()).map((each) => `${each.id} ${each.state}${each.late ? ' late' : ''}`);
    clock += beat; // one beat on: both on time
    await registry('node-a').beat(info);
    expect(await states()).toEqual(['node-a up', 'node-b up']);
    clock += beat / 2 + 1; // node b's last beat is 1.5 beats old and a bit
    await registry('node-a').beat(info);
    expect(await states()).toEqual(['node-a up', 'node-b up late']);
    clock += 1.5 * beat; // 3 beats and a bit: down, no longer called late
    await registry('node-a').beat(info);
    expect(await states()).toEqual(['node-a up', 'node-b down']);
  });
});
