import { describe, expect, it } from 'vitest';
import type { HomeLayout } from '../../source/config/home.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { runCli, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

/**
 * Cluster mode (issue #19): real `switchboard gateway` processes, each with its own home, sharing
 * one real PostgreSQL (started from node_modules by this file) through SWITCHBOARD_DATABASE_URL.
 */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

interface Node { home: HomeLayout; cli: RunningCli; url: string }

/** A node's home; `model`: a scripted OpenAI-compatible server instead of the dry-run model. */
const clusterHome = (model?: ScriptedModel, heartbeatSeconds?: number) => preparedHome((config) => {
  if (heartbeatSeconds) config.store = { heartbeat_seconds: heartbeatSeconds };
  if (model) config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
  // No rate limit in reach: the test counts accepts, not refusals.
  config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Review {pull_request.title}', deliver: 'log', rate_limit: 100_000 } };
});

async function startNode(home: HomeLayout, databaseUrl: string): Promise<Node> {
  return { home, ...(await startGatewayNode(home, databaseUrl, running)) };
}

async function post(node: Node, deliveryId: string): Promise<number> {
  const body = JSON.stringify({ action: 'opened', pull_request: { title: `PR ${deliveryId}` } });
  const response = await fetch(`${node.url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', deliveryId) }, body });
  await response.arrayBuffer();
  return response.status;
}

async function database(url: string): Promise<PgStore> {
  const store = await openPgStore(url);
  closers.push(() => store.close());
  return store;
}

describe('three gateways on one PostgreSQL', () => {
  it('accept one delivery id sent to all three, fifty requests at once, exactly once; each node says which store it uses', { timeout: 180_000 }, async () => {
    const url = await postgres().freshDatabase();
    const nodes = await Promise.all([1, 2, 3].map(() => startNode(clusterHome(), url)));
    for (const node of nodes) expect(node.cli.output()).toMatch(/Store: PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test_\w+, shared with the other nodes; this node is \S+/);
    for (const node of nodes) expect(node.cli.output()).not.toContain(':switchboard-test@'); // the password
    for (let round = 0; round < 3; round += 1) {
      const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(nodes[i % 3]!, `same-${round}`)));
      expect(statuses.filter((status) => status === 202)).toHaveLength(1);
      expect(statuses.filter((status) => status === 200)).toHaveLength(49);
    }
    const db = await database(url);
    await waitUntil(async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE state IN ('queued', 'running')`)).rowCount === 0, 30_000, 'the three runs');
    const { rows } = await db.query<{ delivery_id: string; state: string }>('SELECT delivery_id, state FROM webhook_deliveries ORDER BY delivery_id');
    expect(rows).toEqual(['same-0', 'same-1', 'same-2'].map((id) => ({ delivery_id: id, state: 'delivered' })));
    // Each output went to the log of the node that ran it: `webhook deliveries` on any node says whose.
    const { rows: ranBy } = await db.query<{ node_id: string }>(`SELECT node_id FROM webhook_deliveries WHERE delivery_id = 'same-0'`);
    const listed = (await runCli(['webhook', 'deliveries', '--home', nodes[0]!.home.root])).stdout;
    expect(listed).toMatch(new RegExp(`same-0\\n\\s+written to gateway\\.log \\(node ${ranBy[0]!.node_id}\\)`));
  });

  it('run 3,000 webhooks, every accepted delivery exactly once, while one node is killed with SIGKILL and restarted', { timeout: 330_000 }, async () => {
    const url = await postgres().freshDatabase();
    // Each run waits 50 ms on the model: the killed node has runs in flight and deliveries claimed,
    // and the others are busy while it restarts (its recovery must leave their rows alone).
    const model = await startScriptedModel([{ text: 'Looks good.', delayMs: 50 }], { repeatLast: true });
    closers.push(() => model.close());
    const homes = [clusterHome(model), clusterHome(model), clusterHome(model)];
    const nodes = await Promise.all(homes.map((home) => startNode(home, url)));
    const db = await database(url);
    const total = 3000;
    const accepted: string[] = [];
    const send = async (from: number, to: number) => {
      for (let i = from; i < to; i += 30) {
        const batch = Array.from({ length: Math.min(30, to - i) }, (_, j) => `pr-${i + j}`);
        const statuses = await Promise.all(batch.map((id, j) => post(nodes[(i + j) % 3]!, id).catch(() => 0)));
        batch.forEach((id, j) => { if (statuses[j] === 202) accepted.push(id); });
      }
    };
    await send(0, total / 3);
    const killed = readFileSync(path.join(homes[1]!.root, 'node-id'), 'utf8').trim();
    const held = async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE state = 'running' AND node_id = $1`, [killed])).rowCount!;
    await waitUntil(async () => (await held()) > 0, 20_000, 'runs in flight on the node to kill');
    nodes[1]!.cli.child.kill('SIGKILL');
    await nodes[1]!.cli.exited;
    expect(await held()).toBeGreaterThan(0); // left running by the dead node: only its restart takes them back
    // Sent while it restarts: a third go to the dead node and are refused (connection refused).
    const duringRestart = send(total / 3, (total * 2) / 3);
    nodes[1] = await startNode(homes[1]!, url);
    await duringRestart;
    await send((total * 2) / 3, total);
    expect(accepted.length).toBeGreaterThan(total * 0.8);

    await waitUntil(async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE state IN ('queued', 'running')`)).rowCount === 0, 200_000, 'every accepted delivery run');
    const { rows: deliveries } = await db.query<{ delivery_id: string; state: string }>('SELECT delivery_id, state FROM webhook_deliveries');
    expect(deliveries.map((row) => row.delivery_id).sort()).toEqual([...accepted].sort()); // none lost, none twice
    expect(new Set(deliveries.map((row) => row.state))).toEqual(new Set(['delivered']));
    // One finished run per delivery (a run the kill cut short is closed as interrupted and does not count).
    const { rows: runs } = await db.query<{ origin: string; n: number }>(`SELECT origin, COUNT(*)::int AS n FROM runs WHERE status <> 'interrupted' GROUP BY origin`);
    expect(runs).toHaveLength(accepted.length);
    expect(runs.every((run) => run.n === 1)).toBe(true);
    // One delivered output per delivery.
    const { rows: outputs } = await db.query<{ id: string; n: number }>(`SELECT subject->>'deliveryId' AS id, COUNT(*)::int AS n FROM output_deliveries WHERE status = 'delivered' GROUP BY 1`);
    expect(outputs.map((row) => row.id).sort()).toEqual([...accepted].sort());
    expect(outputs.every((row) => row.n === 1)).toBe(true);
    // Every node took part.
    const { rows: byNode } = await db.query<{ node_id: string }>('SELECT DISTINCT node_id FROM webhook_deliveries');
    expect(byNode).toHaveLength(3);
  });

  it('list every node in status --json; a node killed and never restarted is shown down and a live node takes over its work', { timeout: 240_000 }, async () => {
    const url = await postgres().freshDatabase();
    const model = await startScriptedModel([{ text: 'Looks good.', delayMs: 50 }], { repeatLast: true });
    closers.push(() => model.close());
    // Heartbeats every 2 s: a live node starved of CPU for 3 beats (a loaded test machine) would be
    // taken for dead, and the runs it held then may run twice (docs/cluster.md, "Cost of a false death").
    const homes = [clusterHome(model, 2), clusterHome(model, 2), clusterHome(model, 2)];
    const nodes = await Promise.all(homes.map((home) => startNode(home, url)));
    const ids = homes.map((home) => readFileSync(path.join(home.root, 'node-id'), 'utf8').trim());
    const status = async () => JSON.parse((await runCli(['status', '--json', '--home', homes[0]!.root])).stdout) as { cluster: { nodeId: string; nodes: Array<{ id: string; state: string; pid: number; configHash: string; takenOverBy: string | null }>; warning?: string } };
    const before = await status();
    expect(before.cluster.nodeId).toBe(ids[0]);
    expect(before.cluster.nodes.map((node) => [node.id, node.state]).sort()).toEqual(ids.map((id) => [id, 'up']).sort());
    expect(before.cluster.nodes.find((node) => node.id === ids[1])!.pid).toBe(nodes[1]!.cli.child.pid);
    expect(before.cluster.warning).toBeUndefined(); // the same config everywhere
    const text = (await runCli(['status', '--home', homes[0]!.root])).stdout;
    expect(text).toContain('3 of 3 node(s) up');
    expect(text).toContain(`${ids[0]} *`);

    const db = await database(url);
    const accepted: string[] = [];
    const send = async (from: number, to: number, targets: Node[]) => {
      for (let i = from; i < to; i += 30) {
        const batch = Array.from({ length: Math.min(30, to - i) }, (_, j) => `tk-${i + j}`);
        const statuses = await Promise.all(batch.map((id, j) => post(targets[(i + j) % targets.length]!, id)));
        batch.forEach((id, j) => { if (statuses[j] === 202) accepted.push(id); });
      }
    };
    await send(0, 300, nodes);
    const held = async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE state = 'running' AND node_id = $1`, [ids[1]])).rowCount!;
    await waitUntil(async () => (await held()) > 0, 20_000, 'runs in flight on the node to kill');
    nodes[1]!.cli.child.kill('SIGKILL');
    await nodes[1]!.cli.exited;
    await send(300, 450, [nodes[0]!, nodes[2]!]);
    expect(accepted).toHaveLength(450);

    // Three silent heartbeats later a live node takes the killed node's rows: all of them finish without its restart.
    await waitUntil(async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE state IN ('queued', 'running')`)).rowCount === 0, 200_000, 'every accepted delivery run');
    // The live nodes may drain everything before three heartbeats pass (the runs the killed node held
    // can finish between the check above and the kill), so wait for the silence rather than assume it.
    let after = await status();
    await waitUntil(async () => {
      after = await status();
      return after.cluster.nodes.some((node) => node.id === ids[1] && node.takenOverBy);
    }, 30_000, 'the killed node taken over');
    const killed = after.cluster.nodes.find((node) => node.id === ids[1])!;
    expect(killed.state).toBe('down');
    expect([ids[0], ids[2]]).toContain(killed.takenOverBy);
    expect(after.cluster.nodes.filter((node) => node.state === 'up')).toHaveLength(2);
    // The text status names the taker too.
    expect((await runCli(['status', '--home', homes[0]!.root])).stdout).toMatch(new RegExp(`note\\s+${ids[1]} is down; ${killed.takenOverBy}( \\(this one\\))? took over its work`));
    const taker = nodes[ids.indexOf(killed.takenOverBy!)]!;
    expect(taker.cli.output()).toMatch(new RegExp(`Node ${ids[1]} went silent \\(no heartbeat for 6 s\\); this node took over its work: \\d+ webhook run\\(s\\) queued again`));

    const { rows: deliveries } = await db.query<{ delivery_id: string; state: string }>('SELECT delivery_id, state FROM webhook_deliveries');
    expect(deliveries.map((row) => row.delivery_id).sort()).toEqual([...accepted].sort());
    expect(new Set(deliveries.map((row) => row.state))).toEqual(new Set(['delivered']));
    const { rows: runs } = await db.query<{ origin: string; n: number }>(`SELECT origin, COUNT(*)::int AS n FROM runs WHERE status <> 'interrupted' GROUP BY origin`);
    expect(runs).toHaveLength(accepted.length);
    const falseDeaths = nodes.filter((node) => node.cli.output().includes('took this node for dead')).length;
    expect(runs.filter((run) => run.n !== 1), `runs twice; live nodes taken for dead: ${falseDeaths}`).toEqual([]);
  });
});
