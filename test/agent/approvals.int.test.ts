import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApprovalQueue } from '../../source/agent/approval-queue.js';
import { openStore, type Store } from '../../source/store/database.js';
import { createApprovalStore } from '../../source/store/approvals.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { makeAgentStack } from '../helpers/agent.js';
import { runCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function queue(policy: 'interactive' | 'wait' | 'deny', timeoutMs = 10_000) {
  const home = tempHome();
  const store = openStore(home.stateDb);
  closers.push(() => store.close());
  return { home, store, queue: createApprovalQueue({ approvals: sqliteBackends(store).approvals, logger: pino({ level: 'silent' }), policy, timeoutMs, pollIntervalMs: 50 }) };
}

const input = { origin: 'job:nightly', tool: 'terminal', args: { command: 'rm -rf x', token: 'sekret-value' }, reason: 'matches: recursive delete' };

async function firstPending(store: Store) {
  const records = createApprovalStore(store);
  await expect.poll(() => records.pending().length, { timeout: 5000 }).toBe(1);
  return records.pending()[0]!;
}

describe('approval queue', () => {
  it('persists a sanitized request and resolves when the console decides', async () => {
    const { queue: approvals, store } = queue('interactive');
    const outcome = approvals.request(input);
    const pending = await firstPending(store);
    expect(pending).toMatchObject({ origin: 'job:nightly', tool: 'terminal', status: 'pending', reason: 'matches: recursive delete' });
    expect(pending.argsPreview).toContain('"command": "rm -rf x"');
    expect(pending.argsPreview).not.toContain('sekret-value');
    expect(pending.expiresAtMs - pending.createdAtMs).toBe(10_000);
    expect(await approvals.resolve(pending.id, 'approved')).toBe(true);
    expect(await outcome).toEqual({ status: 'approved' });
    expect(await approvals.resolve(pending.id, 'denied')).toBe(false); // first decision wins
  });

  it('expires after the timeout', async () => {
    const { queue: approvals, store } = queue('wait', 300);
    expect(await approvals.request(input)).toEqual({ status: 'expired', reason: 'no decision before the approval timeout', by: 'timeout' });
    expect(createApprovalStore(store).recent()[0]!.status).toBe('expired');
  });

  it('is cancelled with the run and at shutdown', async () => {
    const { queue: approvals } = queue('interactive');
    const controller = new AbortController();
    const first = approvals.request(input, controller.signal);
    controller.abort();
    expect(await first).toMatchObject({ status: 'cancelled', reason: 'the run was cancelled' });
    const second = approvals.request(input);
    setTimeout(() => approvals.cancelAll('the gateway is stopping'), 50);
    expect(await second).toMatchObject({ status: 'cancelled', reason: 'the gateway is stopping' });
  });

  it('denies at once under the headless deny policy, and records it', async () => {
    const { queue: approvals, store } = queue('deny');
    expect(await approvals.request(input)).toEqual({ status: 'denied', reason: 'no operator console is attached (approvals.headless is "deny")', by: 'policy' });
    expect(createApprovalStore(store).recent()[0]).toMatchObject({ status: 'denied', decidedBy: 'policy' });
  });

  it('never grants when the approval path fails', async () => {
    const { queue: approvals, store } = queue('interactive');
    store.close();
    closers.pop();
    const outcome = await approvals.request(input);
    expect(outcome.status).toBe('denied');
    expect((outcome as { reason: string }).reason).toMatch(/^the approval request failed: /);
  });

  it('picks up decisions from another process: `switchboard approvals approve` and `deny`', async () => {
    const { queue: approvals, store, home } = queue('wait');
    const approved = approvals.request(input);
    const pending = await firstPending(store);
    const listed = await runCli(['approvals', 'list', '--home', home.root]);
    expect(listed.stdout).toContain(pending.id);
    expect(listed.stdout).toContain('terminal  from job:nightly  (matches: recursive delete)');
    const cli = await runCli(['approvals', 'approve', pending.id.slice(0, 8), '--home', home.root]);
    expect(cli.stderr).toBe(`Approved terminal for job:nightly (${pending.id}).\n`);
    expect(await approved).toEqual({ status: 'approved' });
    const again = await runCli(['approvals', 'deny', pending.id, '--home', home.root]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Approval ${pending.id} (terminal for job:nightly) is already approved (by cli)`);

    const denied = approvals.request(input);
    const next = await firstPending(store);
    await runCli(['approvals', 'deny', next.id, '--reason', 'not today', '--home', home.root]);
    expect(await denied).toMatchObject({ status: 'denied', reason: 'not today' });
    expect((await runCli(['approvals', 'approve', 'zzzz', '--home', home.root])).stderr).toContain('No approval with id "zzzz"');
  });
});

describe('approvals in a run, decided from a second process', () => {
  let model: ScriptedModel;
  afterEach(async () => model?.close());

  async function runWithApproval(timeoutSeconds: number, decide: (id: string, root: string) => Promise<unknown>) {
    model = await startScriptedModel([{ toolCalls: [{ name: 'terminal', args: { command: 'touch made-it && chmod 600 made-it && echo done' } }] }, { text: 'finished' }]);
    const home = tempHome();
    const stack = makeAgentStack(home, (config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'm' };
      config.approvals = { headless: 'wait', timeout_seconds: timeoutSeconds };
    }, 'wait');
    closers.push(() => stack.store.close());
    const run = stack.runAgent({ prompt: 'go', origin: 'webhook:gh:abc' });
    const pending = await firstPending(stack.store);
    expect(pending).toMatchObject({ origin: 'webhook:gh:abc', tool: 'terminal', reason: 'matches: permission or ownership change' });
    await decide(pending.id, home.root);
    return { result: await run, home };
  }

  it('an approval from `switchboard approvals approve` lets the command run', async () => {
    const { result, home } = await runWithApproval(30, (id, root) => runCli(['approvals', 'approve', id, '--home', root]));
    expect(result.toolCalls[0]!.result).toBe('exit code 0\ndone\n');
    expect(fs.existsSync(path.join(home.workspaceDir, 'made-it'))).toBe(true);
  });

  it('expiry refuses the command and the model is told not to retry', async () => {
    const { result, home } = await runWithApproval(1, async () => undefined);
    expect(result.toolCalls[0]!.result).toBe('not approved (expired: no decision before the approval timeout); the command was not run; do not retry without being asked');
    expect(fs.existsSync(path.join(home.workspaceDir, 'made-it'))).toBe(false);
    expect(result.output).toBe('finished');
  });
});

describe('session approvals', () => {
  it('approves later calls to the same tool of the same server at once, and nothing else', async () => {
    const { queue: approvals, store } = queue('interactive');
    const first = approvals.request({ ...input, server: 'github' });
    const pending = await firstPending(store);
    expect(await approvals.approveForSession(pending.id)).toEqual({ released: 0 });
    expect(await first).toEqual({ status: 'approved' });
    expect(await approvals.request({ ...input, server: 'github' })).toEqual({ status: 'approved' });
    expect(approvals.grants()).toEqual([{ tool: input.tool, server: 'github' }]);
    expect(createApprovalStore(store).recent(1)[0]).toMatchObject({ status: 'approved', decidedBy: 'session' });
    // Another server's tool of the same name still asks.
    const other = approvals.request({ ...input, server: 'gitlab' });
    const next = await firstPending(store);
    expect(next.server).toBe('gitlab');
    await approvals.resolve(next.id, 'denied');
    expect((await other).status).toBe('denied');
  });
});
