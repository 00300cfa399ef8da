import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import { openPgStore, type PgStore } from '../../source/store/pg/pg-store.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { stopClis, type RunningCli } from '../helpers/cli.js';
import { renderConsole } from '../helpers/console.js';
import { preparedHome } from '../helpers/host.js';
import { waitForFrame } from '../helpers/ink.js';
import { startGatewayNode, usePostgres } from '../helpers/cluster.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

/** Issue #19: an approval asked by a run on node B, decided in a console attached to node A. */
const postgres = usePostgres();

const running: RunningCli[] = [];
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await stopClis(running, 'SIGKILL');
});

describe('an approval across nodes', () => {
  it('shows in a console attached to another node, and the decision there lets the run go on', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const model: ScriptedModel = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', args: { command: 'rm -rf scratch && echo removed' } }] },
      { text: 'Scratch folder cleaned.' },
    ]);
    closers.push(() => model.close());
    const homes = [0, 1].map(() => preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      // Neither node has a console of its own: requests wait for one attached anywhere.
      config.approvals = { headless: 'wait' };
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Clean the scratch folder', deliver: 'log' } };
    }));
    const nodes = [];
    for (const home of homes) nodes.push(await startGatewayNode(home, url, running));
    const scratch = path.join(homes[1]!.workspaceDir, 'scratch');
    fs.mkdirSync(scratch, { recursive: true });

    const view = await renderConsole({ size: { columns: 140, rows: 40 }, link: async () => attachLink({ socketPath: homes[0]!.controlSocket }) });
    closers.push(view.close);
    await waitForFrame(view.lastFrame, (f) => f.includes('attached to pid'), 20_000);

    const body = JSON.stringify({ action: 'opened' });
    const posted = await fetch(`${nodes[1]!.url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', 'pr-across') }, body });
    expect(posted.status).toBe(202);

    const dialog = await waitForFrame(view.lastFrame, (f) => f.includes('Approval 1 of 1'), 20_000);
    expect(dialog).toContain('from webhook:gh:pr-across');
    expect(dialog).toContain('"command": "rm -rf scratch && echo removed"');
    expect(fs.existsSync(scratch)).toBe(true);
    view.stdin.write('a');

    const db: PgStore = await openPgStore(url);
    closers.push(() => db.close());
    await waitUntil(async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE delivery_id = 'pr-across' AND state = 'delivered'`)).rowCount === 1, 30_000, 'the run on node B delivered');
    expect(fs.existsSync(scratch)).toBe(false); // the command ran on node B, after the decision on node A
    const { rows } = await db.query<{ status: string; decided_by: string }>('SELECT status, decided_by FROM approvals');
    expect(rows).toEqual([{ status: 'approved', decided_by: 'console' }]);
    await waitForFrame(view.lastFrame, (f) => f.includes('approvals 0'), 10_000);
  });
});
