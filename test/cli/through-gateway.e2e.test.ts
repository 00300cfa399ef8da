import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';
import { attachLink } from '../../source/operations/connect.js';
import type { GatewayLink } from '../../source/operations/link.js';
import type { GatewayEvent } from '../../source/operations/state.js';

const children: RunningCli[] = [];
const links: GatewayLink[] = [];
let model: ScriptedModel | undefined;
afterEach(async () => {
  for (const link of links.splice(0)) await link.close();
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
    await child.exited;
  }
  await model?.close();
  model = undefined;
});

/** A client attached like a console: every event it receives, with the time it arrived. */
async function watch(socketPath: string) {
  const link = await attachLink({ socketPath });
  links.push(link);
  const seen: Array<{ event: GatewayEvent; atMs: number }> = [];
  link.subscribe({ onSnapshot: () => {}, onEvent: (event) => seen.push({ event, atMs: Date.now() }) });
  return seen;
}

describe('the CLI through a running gateway', () => {
  it('cron pause takes effect before the command returns, and an attached client sees it at once', async () => {
    const home = preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    children.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    const seen = await watch(home.controlSocket);
    expect((await runCli(['cron', 'create', 'every 1h', 'hello', '--name', 'hourly', '--home', home.root])).code).toBe(0);
    const paused = await runCli(['cron', 'pause', 'hourly', '--home', home.root]);
    const returnedAtMs = Date.now();
    expect(paused.stderr).toMatch(/Applied by the running gateway \(pid \d+\)/);
    const change = await waitUntil(() => seen.find(({ event }) => event.type === 'job.changed' && event.data.job?.name === 'hourly' && event.data.job.enabled === false), 1_000, 'job.changed (paused)');
    expect(change.atMs - returnedAtMs).toBeLessThan(1_000);
  });

  it('a run through the gateway waits for an approval that the CLI gives; every attached client sees the request and the decision', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'sudo true' } }] }, { text: 'done' }]);
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' };
      config.approvals = { headless: 'wait' };
    });
    const gateway = startCli(['gateway', '--home', home.root]);
    children.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    const seen = await watch(home.controlSocket);
    const run = startCli(['run', 'please', '--home', home.root]);
    children.push(run);
    await run.waitFor(/\? terminal needs approval .*switchboard approvals approve\|deny ([0-9a-f]{8})/);
    const id = /approve\|deny ([0-9a-f]{8})/.exec(run.output())![1]!;
    const listed = await runCli(['approvals', 'list', '--home', home.root]);
    expect(listed.stdout).toContain('terminal  from cli');
    const approved = await runCli(['approvals', 'approve', id, '--home', home.root]);
    expect(approved.stderr).toContain('Approved terminal for cli');
    const result = await run.exited;
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toContain('Running on the gateway');
    expect(seen.some(({ event }) => event.type === 'approval.requested' && event.data.id.startsWith(id))).toBe(true);
    expect(seen.some(({ event }) => event.type === 'approval.resolved' && event.data.id.startsWith(id) && event.data.status === 'approved')).toBe(true);
  });

  it('without a gateway, run connects the configured MCP servers first and calls their tools', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'mcp__fx__echo', args: { text: 'from the fixture' } }] }, { text: 'echoed' }]);
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' };
      config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } };
    });
    const result = await runCli(['run', 'echo something', '--home', home.root]);
    expect(result.stderr).toContain('  > mcp__fx__echo {"text":"from the fixture"}');
    expect(result.stderr).toMatch(/ {2}< mcp__fx__echo ok \(\d+ ms\): .*from the fixture/);
    expect(result.stdout).toBe('echoed\n');
    // The model saw the server's tools in its first request.
    expect(JSON.stringify(model.requests[0]!.body.tools)).toContain('mcp__fx__echo');
  });
});
