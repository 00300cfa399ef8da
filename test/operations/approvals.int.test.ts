import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { preparedHome, startHost } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { attachLink, attachToGateway } from '../../source/operations/connect.js';
import type { GatewayLink } from '../../source/operations/link.js';
import type { GatewayState } from '../../source/operations/state.js';

let model: ScriptedModel | undefined;
const links: GatewayLink[] = [];
afterEach(async () => {
  for (const link of links.splice(0)) await link.close();
  await model?.close();
  model = undefined;
});

async function headlessHost() {
  model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'rm -rf /tmp/switchboard-approval-test-nothing-here' } }] }, { text: 'finished' }]);
  const home = preparedHome((config) => {
    config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' };
    config.approvals = { headless: 'deny' };
  });
  return { home, host: await startHost(home) };
}

describe('approvals on a headless gateway', () => {
  it('with no console attached, approvals.headless ("deny") decides at once', async () => {
    const { host } = await headlessHost();
    const result = await host.operations.runs.run({ prompt: 'go', origin: 'cli' });
    expect(result.toolCalls[0]).toMatchObject({ name: 'terminal', isError: true });
    expect((await host.operations.approvals.list({ all: true }))[0]).toMatchObject({ status: 'denied', decidedBy: 'policy' });
  });

  it('while a console is attached, a request waits for an operator; a decision from another client lets the run go on and leaves every console', async () => {
    const { home, host } = await headlessHost();
    const states: Array<() => GatewayState> = [];
    for (let i = 0; i < 2; i += 1) {
      const link = await attachLink({ socketPath: home.controlSocket });
      links.push(link);
      const { createReadModel } = await import('../../source/operations/state.js');
      let model: ReturnType<typeof createReadModel> | undefined;
      link.subscribe({ onSnapshot: (state) => { model = createReadModel(state); }, onEvent: (event) => model?.apply(event) });
      states.push(() => model!.state());
    }
    await waitUntil(() => states.every((state) => { try { return state(); } catch { return false; } }), 5_000, 'both consoles to have a snapshot');
    const running = host.operations.runs.run({ prompt: 'go', origin: 'cli' });
    await waitUntil(() => states.every((state) => state().approvals.length === 1), 5_000, 'the request in both consoles');
    const id = states[0]!().approvals[0]!.id;
    const cli = await attachToGateway({ socketPath: home.controlSocket });
    await cli.operations.approvals.decide({ id, decision: 'approve', by: 'cli' });
    await cli.close();
    const decidedAt = Date.now();
    await waitUntil(() => states.every((state) => state().approvals.length === 0), 2_000, 'the request to leave both consoles');
    expect(Date.now() - decidedAt).toBeLessThan(500);
    const result = await running;
    expect(result.output).toBe('finished');
    expect(result.toolCalls[0]).toMatchObject({ name: 'terminal', isError: false });
  });
});

describe('session grants and cancelling runs', () => {
  it('a grant approves the request and releases queued requests of the same tool; it is listed and revocable', async () => {
    const call = (target: string) => ({ toolCalls: [{ name: 'terminal', args: { command: `rm -rf /tmp/switchboard-grant-test-${target}` } }] });
    model = await startScriptedModel([call('a'), call('b'), { text: 'done' }, { text: 'done' }]);
    const home = preparedHome((config) => { config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' }; });
    const host = await startHost(home, 'console'); // the operator decides
    const first = host.operations.runs.run({ prompt: 'a', origin: 'console' });
    await waitUntil(async () => (await host.operations.approvals.list({})).length === 1, 5_000, 'the first request');
    const second = host.operations.runs.run({ prompt: 'b', origin: 'console' });
    await waitUntil(async () => (await host.operations.approvals.list({})).length === 2, 5_000, 'the second request');
    const [request] = await host.operations.approvals.list({});
    const granted = await host.operations.approvals.approveForSession({ id: request!.id, by: 'console' });
    expect(granted).toMatchObject({ record: { id: request!.id, status: 'approved' }, released: 1 });
    expect((await first).toolCalls[0]).toMatchObject({ isError: false });
    expect((await second).toolCalls[0]).toMatchObject({ isError: false });
    expect(await host.operations.approvals.grants({})).toEqual([{ tool: 'terminal', server: null }]);
    expect(host.state().grants).toEqual([{ tool: 'terminal', server: null }]);
    expect(host.state().approvalHistory.map((record) => record.status)).toEqual(['approved', 'approved']);
    await host.operations.approvals.revokeGrant({ tool: 'terminal' });
    expect(await host.operations.approvals.grants({})).toEqual([]);
    await expect(host.operations.approvals.revokeGrant({ tool: 'terminal' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('runs.cancel stops a run in flight, whatever started it', async () => {
    model = await startScriptedModel([{ text: 'too late', delayMs: 10_000 }]);
    const home = preparedHome((config) => { config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' }; });
    const host = await startHost(home);
    const running = host.operations.runs.run({ prompt: 'slow', origin: 'cli', runId: 'run-to-cancel' });
    await waitUntil(() => model!.requests.length === 1, 5_000, 'the model call');
    await expect(host.operations.runs.cancel({ runId: 'run-to-cancel' })).resolves.toEqual({ runId: 'run-to-cancel', cancelled: true });
    expect((await running).status).toBe('cancelled');
    await expect(host.operations.runs.cancel({ runId: 'run-to-cancel' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('approvals.answer (an MCP server\'s form)', () => {
  it('checks the values against the form before anything is sent, refuses a tool call and an approve, and sends what fits', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'mcp__fx__ask', args: {} }] }, { text: 'done' }]);
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' };
      config.mcp_servers = { fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'] } };
    });
    const host = await startHost(home, 'console'); // the operator answers
    await waitUntil(async () => (await host.operations.mcp.servers({})).servers.some((server) => server.name === 'fx' && server.status === 'ready'), 20_000, 'fx ready');
    const running = host.operations.runs.run({ prompt: 'ask', origin: 'console' });
    await waitUntil(async () => (await host.operations.approvals.list({})).length === 1, 10_000, 'the form');
    const [form] = await host.operations.approvals.list({});
    expect(await host.operations.approvals.get({ id: form!.id.slice(0, 8) })).toMatchObject({ id: form!.id, server: 'fx', form: { message: 'Your name?' } });

    await expect(host.operations.approvals.answer({ id: form!.id, values: { name: 5, nick: 'x' } })).rejects.toMatchObject({
      code: 'invalid', message: `The answer does not fit the form of approval ${form!.id} (fx)`,
      details: ['name: must be text (got 5)', 'nick: not a field of this form (its fields: name)'],
    });
    await expect(host.operations.approvals.answer({ id: form!.id, values: {} })).rejects.toMatchObject({ details: ['name: is required (text)'] });
    await expect(host.operations.approvals.decide({ id: form!.id, decision: 'approve' })).rejects.toMatchObject({
      hint: `Answer it with switchboard approvals answer ${form!.id.slice(0, 8)} --value field=... (its fields: switchboard approvals list), or --decline; or fill it in in the console.`,
    });
    expect(await host.operations.approvals.list({})).toHaveLength(1); // still waiting

    const answered = await host.operations.approvals.answer({ id: form!.id, values: { name: 'Ada' }, by: 'cli' });
    expect(answered).toMatchObject({ status: 'approved', decidedBy: 'cli', values: { name: 'Ada' } });
    expect((await running).toolCalls[0]).toMatchObject({ name: 'mcp__fx__ask', result: 'elicitation accept {"name":"Ada"}' });
    await expect(host.operations.approvals.answer({ id: form!.id, decline: true })).rejects.toMatchObject({ code: 'conflict', message: `Approval ${form!.id} (form from fx) is already answered (by cli)` });
  });

  it('a tool call has nothing to answer: answer refuses it rather than approving it', async () => {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'rm -rf /tmp/switchboard-answer-test-nothing-here' } }] }, { text: 'finished' }]);
    const home = preparedHome((config) => { config.model = { provider: 'openai-compatible', base_url: model!.url, name: 'm' }; });
    const host = await startHost(home, 'console');
    const running = host.operations.runs.run({ prompt: 'go', origin: 'console' });
    await waitUntil(async () => (await host.operations.approvals.list({})).length === 1, 5_000, 'the request');
    const [request] = await host.operations.approvals.list({});
    await expect(host.operations.approvals.answer({ id: request!.id, values: {} })).rejects.toMatchObject({ code: 'invalid', message: `Approval ${request!.id} is a call of terminal, not a form: it has nothing to answer` });
    await host.operations.approvals.decide({ id: request!.id, decision: 'deny' });
    expect((await running).toolCalls[0]).toMatchObject({ isError: true });
  });
});
