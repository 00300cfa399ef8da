import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import { renderConsole, slash } from '../helpers/console.js';
import { preparedHome } from '../helpers/host.js';
import { keys, waitForFrame } from '../helpers/ink.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { githubHeaders, SECRET } from '../helpers/webhooks.js';

/** The console's /nodes: attached to a real cluster node, and in-process on SQLite. */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

describe('/nodes in the console', () => {
  it('lists the nodes of the cluster its gateway is in, and shows a killed one down', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const homes = [0, 1].map(() => preparedHome((config) => { config.store = { heartbeat_seconds: 1 }; }));
    for (const home of homes) await startGatewayNode(home, url, running);
    const ids = homes.map((home) => readFileSync(path.join(home.root, 'node-id'), 'utf8').trim());
    const view = await renderConsole({ size: { columns: 140, rows: 30 }, link: async () => attachLink({ socketPath: homes[0]!.controlSocket }) });
    closers.push(view.close);
    // The header names the node the console is attached to, as /nodes does.
    await waitForFrame(view.lastFrame, (f) => new RegExp(`^switchboard attached to ${ids[0]} \\(pid \\d+\\) · `).test(f), 20_000);
    await slash(view.stdin, view.lastFrame, 'nodes');
    const listed = await waitForFrame(view.lastFrame, (f) => f.includes('2 of 2 node(s) up') && f.includes(`${ids[0]} *`) && f.includes(ids[1]!), 10_000);
    expect(listed).toMatch(/node\s+state\s+host\s+pid\s+version\s+config\s+runs\s+heartbeat\s+webhooks/);
    // The columns line up: each row's state starts where the header's does.
    const lines = listed.split('\n');
    const header = lines.find((line) => /node\s+state\s+host/.test(line))!;
    const row = lines.find((line) => line.includes(`${ids[1]} `) && line.includes(' up '))!;
    expect(row.indexOf(' up ') + 1).toBe(header.indexOf('state'));
    running[1]!.child.kill('SIGKILL');
    await waitForFrame(view.lastFrame, (f) => f.includes('1 of 2 node(s) up') && new RegExp(`${ids[1]}\\s+down \\(silent \\d+ s\\)`).test(f), 20_000);
    // Three silent heartbeats on, the only live node (this one) takes over its work, and says so.
    await waitForFrame(view.lastFrame, (f) => f.includes(`${ids[1]} is down; ${ids[0]} (this one) took over its work`), 20_000);
    view.stdin.write(keys.escape);
    await waitForFrame(view.lastFrame, (f) => !f.includes('node(s) up'));
  });

  it('shows webhooks another node answered and ran, live, with the node that handled each', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const homes = [0, 1].map(() => preparedHome((config) => {
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } };
    }));
    const listeners: string[] = [];
    for (const home of homes) listeners.push((await startGatewayNode(home, url, running)).url);
    const other = readFileSync(path.join(homes[1]!.root, 'node-id'), 'utf8').trim();
    const view = await renderConsole({ size: { columns: 160, rows: 30 }, link: async () => attachLink({ socketPath: homes[0]!.controlSocket }) });
    closers.push(view.close);
    await waitForFrame(view.lastFrame, (f) => /^switchboard attached to \S+ \(pid \d+\) · /.test(f), 20_000);
    view.stdin.write('2');
    const body = JSON.stringify({ action: 'opened' });
    const posted = await fetch(`${listeners[1]}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', 'on-the-other-node') }, body });
    expect(posted.status).toBe(202);
    // Only the other node saw it; the console attached here shows it as it runs there.
    await waitForFrame(view.lastFrame, (f) => new RegExp(`on-the-other-node\\s+accepted\\s+delivered @${other}`).test(f), 20_000);
  });

  it('says there is no cluster when the gateway runs on SQLite', { timeout: 60_000 }, async () => {
    const view = await renderConsole({ size: { columns: 140, rows: 30 } });
    closers.push(view.close);
    await slash(view.stdin, view.lastFrame, 'nodes');
    await waitForFrame(view.lastFrame, (f) => f.includes('This gateway runs on SQLite: no cluster.'));
  });
});
