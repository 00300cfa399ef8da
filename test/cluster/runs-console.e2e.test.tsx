import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachLink, attachToGateway } from '../../source/operations/connect.js';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { renderConsole } from '../helpers/console.js';
import { preparedHome } from '../helpers/host.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { startGatewayNode, useClusterCleanup, usePostgres, type GatewayNode } from '../helpers/cluster.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

/** Issue #19: a console attached to one node counts and lists the runs in flight on every node. */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

describe('runs in flight across nodes', () => {
  it('the header counts a run held on another node, the runs overlay names that node, and a killed node\'s run leaves the count', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    // The model holds its answer: the run on node B stays in flight while the test looks.
    const model = await startScriptedModel([{ text: 'Reviewed.', delayMs: 120_000 }]);
    closers.push(() => model.close());
    const homes = [0, 1].map(() => preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      config.store = { heartbeat_seconds: 1 };
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } };
    }));
    const nodes = [];
    for (const home of homes) nodes.push(await startGatewayNode(home, url, running));
    const [nodeA, nodeB] = homes.map((home) => readFileSync(path.join(home.root, 'node-id'), 'utf8').trim());
    const view = await renderConsole({ size: { columns: 160, rows: 30 }, link: async () => attachLink({ socketPath: homes[0]!.controlSocket }) });
    closers.push(view.close);
    await waitForFrame(view.lastFrame, (f) => /attached to \S+ \(pid \d+\)/.test(f) && f.includes('runs 0 '), 20_000);

    const body = JSON.stringify({ action: 'opened' });
    const posted = await fetch(`${nodes[1]!.url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', 'held-on-b') }, body });
    expect(posted.status).toBe(202);
    await waitForFrame(view.lastFrame, (f) => f.includes('runs 1 '), 20_000);
    const db = await openPgStore(url);
    closers.push(() => db.close());
    // Node A runs nothing: the count is node B's run.
    const runs = await waitUntil(async () => { const { rows } = await db.query<{ node_id: string; status: string }>('SELECT node_id, status FROM runs'); return rows.length > 0 && rows; }, 10_000, 'the run recorded');
    expect(runs).toEqual([{ node_id: nodeB, status: 'running' }]);

    view.stdin.write('X');
    const overlay = await waitForFrame(view.lastFrame, (f) => f.includes('Runs in flight (1)') && f.includes('webhook:gh'), 10_000);
    expect(overlay).toContain(`@${nodeB}`);
    expect(overlay).not.toContain(`@${nodeA}`);
    // Cancelling is for the node that runs it.
    view.stdin.write('x');
    view.stdin.write('y');
    await waitForFrame(view.lastFrame, (f) => f.includes(`runs on node ${nodeB}: cancel it in a console attached to that node`), 5_000);
    view.stdin.write(keys.escape);

    // A node killed mid-run sends no end: once it is seen down, its run leaves the count.
    running[1]!.child.kill('SIGKILL');
    await waitForFrame(view.lastFrame, (f) => f.includes('runs 0 '), 30_000);
  });

  it('a console attaching later sees what another node did while nobody watched (nothing was relayed then): its rows and its run in flight', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const model = await startScriptedModel([{ text: 'Reviewed.' }, { text: 'Held.', delayMs: 120_000 }]);
    closers.push(() => model.close());
    const homes = [0, 1].map(() => preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } };
    }));
    const nodes: GatewayNode[] = [];
    for (const home of homes) nodes.push(await startGatewayNode(home, url, running));
    const nodeB = readFileSync(path.join(homes[1]!.root, 'node-id'), 'utf8').trim();
    const db = await openPgStore(url);
    closers.push(() => db.close());
    const post = async (deliveryId: string) => {
      const body = JSON.stringify({ action: 'opened' });
      const posted = await fetch(`${nodes[1]!.url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', deliveryId) }, body });
      expect(posted.status).toBe(202);
    };
    const statuses = async () => (await db.query<{ status: string }>('SELECT status FROM runs ORDER BY started_at_ms')).rows.map((row) => row.status);
    await post('done-on-b');
    await waitUntil(async () => (await statuses()).join() === 'ok', 20_000, 'the first run done');
    await post('held-on-b');
    await waitUntil(async () => (await statuses()).join() === 'ok,running', 20_000, 'the second run started');
    // Nobody watched node A: node B relayed nothing to it (a request, not a subscription, asks).
    const asked = await attachToGateway({ socketPath: homes[0]!.controlSocket });
    const before = await asked.operations.gateway.state({});
    await asked.close();
    expect(before.webhooks).toEqual([]);
    expect(before.runsInFlight).toEqual([]);

    const view = await renderConsole({ size: { columns: 160, rows: 30 }, link: async () => attachLink({ socketPath: homes[0]!.controlSocket }) });
    closers.push(view.close);
    view.stdin.write('2');
    const shown = await waitForFrame(view.lastFrame, (f) => /held-on-b\s+accepted\s+running/.test(f) && new RegExp(`done-on-b\\s+accepted\\s+delivered @${nodeB}`).test(f) && f.includes('runs 1 '), 20_000);
    expect(shown.indexOf('held-on-b')).toBeLessThan(shown.indexOf('done-on-b')); // newest first
  });
});
