import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext, ToolOutput } from '../../source/agent/types.js';
import type { GatewayEventMap } from '../../source/gateway/events.js';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { makeGateway } from '../helpers/gateway.js';
import { writeScript } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(edit?: Parameters<typeof makeGateway>[1], mode: 'headless' | 'console' = 'headless') {
  const home = tempHome();
  const made = makeGateway(home, edit, undefined, mode);
  cleanups.push(async () => { await made.gateway.stop('test over'); made.store.close(); });
  await made.gateway.start();
  return { ...made, home };
}

function context(origin = 'webhook:demo:42'): ToolContext {
  return { runId: 'test-run', origin, signal: new AbortController().signal, requestApproval: async () => ({ status: 'denied', reason: 'not in this test' }) };
}

async function call(tool: { execute: (args: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput | string> }, args: Record<string, unknown>, origin?: string): Promise<ToolOutput> {
  const output = await tool.execute(args, context(origin));
  return typeof output === 'string' ? { text: output } : output;
}

describe('scheduler in the gateway', () => {
  it('offers the core commands and emits job.changed, job.started and job.finished', async () => {
    const { gateway, home } = await started();
    const events: Array<[keyof GatewayEventMap, unknown]> = [];
    for (const name of ['job.changed', 'job.started', 'job.finished'] as const) gateway.events.on(name, (payload: unknown) => events.push([name, payload]));

    const created = await gateway.jobs.create({ schedule: '0 9 * * 1-5', prompt: 'Morning summary', deliver: 'local' });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.value).toMatchObject({ origin: 'console', deliver: 'local', enabled: true, schedule: '0 9 * * 1-5' });
    expect(gateway.snapshot().jobs).toMatchObject({ jobs: 1, enabled: 1, running: [], nextRunAtMs: created.value.nextRunAtMs });

    const run = await gateway.jobs.runNow(created.value.id);
    expect(run.ok && run.value.status).toBe('ok');
    expect(fs.readdirSync(path.join(home.root, 'cron', 'output', created.value.id))).toHaveLength(1);
    expect((await gateway.jobs.pause('Morning summary')).ok).toBe(true);
    expect(await gateway.jobs.list()).toEqual([]);
    expect(await gateway.jobs.list({ all: true })).toHaveLength(1);
    expect((await gateway.jobs.resume(created.value.id)).ok).toBe(true);
    const edited = await gateway.jobs.edit(created.value.id, { prompt: 'Evening summary', schedule: '0 18 * * 1-5' });
    expect(edited.ok && edited.value).toMatchObject({ prompt: 'Evening summary', schedule: '0 18 * * 1-5', deliver: 'local', origin: 'console' });
    expect(await gateway.jobs.edit(created.value.id, { schedule: 'every 0m' })).toMatchObject({ ok: false, reason: expect.stringContaining('at least 1') });
    expect((await gateway.jobs.remove(created.value.id)).ok).toBe(true);
    expect(await gateway.jobs.runs(created.value.id)).toHaveLength(1);

    expect(events.map(([name, payload]) => `${name}${(payload as { change?: string }).change ? `:${(payload as { change: string }).change}` : ''}`)).toEqual([
      // After the run: the job's last status and failure count (job.changed), then the edits.
      'job.changed:created', 'job.started', 'job.changed:updated', 'job.finished', 'job.changed:updated', 'job.changed:updated', 'job.changed:updated', 'job.changed:removed',
    ]);
    expect(events[2]![1]).toMatchObject({ job: { lastStatus: 'ok', consecutiveFailures: 0 } });
    expect(events[3]![1]).toMatchObject({ status: 'ok', trigger: 'manual', delivery: { target: 'local', ok: true } });
    expect((events[3]![1] as { output: string }).output).toContain('Morning summary');
  });

  it('a console-created job delivers to its origin: the Output pane in the console, a kept file headless', async () => {
    const headless = await started();
    const created = await headless.gateway.jobs.create({ schedule: 'every 1h', prompt: 'ping' });
    if (!created.ok) throw new Error(created.reason);
    expect(created.value.deliver).toBe('origin');
    const run = await headless.gateway.jobs.runNow(created.value.id);
    expect(run.ok && run.value).toMatchObject({ status: 'ok', deliveryOk: true });
    expect(run.ok && run.value.deliveryDetail).toMatch(new RegExp(`^no console is attached to show it; kept in ${headless.home.root}/cron/output/${created.value.id}/.+\\.md$`));

    const withConsole = await started(undefined, 'console');
    const shown: Array<{ text: string }> = [];
    withConsole.gateway.events.on('output.delivered', (output) => shown.push(output));
    const job = await withConsole.gateway.jobs.create({ schedule: 'every 1h', prompt: 'ping the console' });
    if (!job.ok) throw new Error(job.reason);
    const consoleRun = await withConsole.gateway.jobs.runNow(job.value.id);
    expect(consoleRun.ok && consoleRun.value).toMatchObject({ status: 'ok', deliveryOk: true, deliveryDetail: 'shown in the console Output pane' });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.text).toContain('ping the console');
  });

  it('the cronjob tool refuses a skill that is not installed, naming it and the usable ones; takes a front matter name', async () => {
    const { gateway, home } = await started();
    fs.mkdirSync(path.join(home.skillsDir, 'review'), { recursive: true });
    fs.writeFileSync(path.join(home.skillsDir, 'review', 'SKILL.md'), '---\nname: code-review\n---\nRead the diff.');
    const tool = gateway.tools.get('cronjob')!;
    expect(await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', skills: ['nosuch'] })).toEqual({
      isError: true, text: `skill "nosuch" not found in ${home.skillsDir}; available: review (name "code-review") (switchboard skills list)`,
    });
    const made = await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', skills: ['code-review'] });
    expect(made).toMatchObject({ structured: { skills: ['code-review'] } });
    expect(made.isError).toBeFalsy();
  });

  it('registers the cronjob tool with the same validation as the CLI, scripts confined to $SWITCHBOARD_HOME/scripts', async () => {
    const { gateway, home } = await started();
    const tool = gateway.tools.get('cronjob')!;
    expect(tool).toBeDefined();
    const scripts = path.join(home.root, 'scripts');
    writeScript(scripts, 'inbox.sh', 'echo 3 new mails');
    const outside = writeScript(path.join(home.root, 'elsewhere'), 'evil.sh', 'echo owned');
    fs.symlinkSync(outside, path.join(scripts, 'link.sh'));

    const noPlatform = await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', deliver: 'slack' });
    expect(noPlatform).toMatchObject({ isError: true, text: expect.stringContaining('platforms.slack is not enabled') });
    const bad = await call(tool, { action: 'create', schedule: 'every 90 minutes', prompt: 'x' });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.text).toContain('accepted forms');
    const escape = await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', script: outside });
    expect(escape.isError).toBe(true);
    expect(escape.text).toContain('the agent may only schedule scripts from that folder');
    const viaLink = await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', script: 'link.sh' });
    expect(viaLink.isError).toBe(true);
    expect(viaLink.text).toContain('outside');
    const climb = await call(tool, { action: 'create', schedule: 'every 1h', prompt: 'x', script: '../elsewhere/evil.sh' });
    expect(climb.isError).toBe(true);

    const made = await call(tool, { action: 'create', schedule: 'every 30m', prompt: 'Read the inbox count', script: 'inbox.sh', name: 'inbox' });
    expect(made.isError).toBeFalsy();
    expect(made.text).toMatch(/^Created job inbox \([0-9a-f]{8}\): "every 30m", next run /);
    expect(made.structured).toMatchObject({ deliver: 'origin', origin: 'webhook:demo:42', script: fs.realpathSync(path.join(scripts, 'inbox.sh')) });

    expect((await call(tool, { action: 'list' })).text).toContain('inbox (');
    expect((await call(tool, { action: 'pause', job: 'inbox' })).text).toMatch(/^Paused job inbox/);
    expect((await call(tool, { action: 'list' })).text).toBe('No jobs.');
    expect((await call(tool, { action: 'resume', job: 'inbox' })).text).toMatch(/^Resumed job inbox/);
    const ran = await call(tool, { action: 'run', job: 'inbox' });
    expect(ran.text).toMatch(/^Run \S+ of inbox: ok/); // origin without a console: kept in a file
    expect(ran.text).toContain('3 new mails');
    expect((await call(tool, { action: 'remove', job: 'inbox' })).text).toMatch(/^Removed job inbox/);
    expect((await call(tool, { action: 'run', job: 'inbox' }))).toMatchObject({ isError: true, text: expect.stringContaining('no job with id or name "inbox"') });
    expect((await call(tool, { action: 'explode' }))).toMatchObject({ isError: true });
  });

  it('lets a real model create a job through the tool loop', async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'cronjob', args: { action: 'create', schedule: '0 8 * * 7', prompt: 'Weekly digest', name: 'digest' } }] },
      { text: 'Scheduled.' },
    ]);
    cleanups.push(() => model.close());
    const { gateway } = await started((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'm' };
      config.timezone = 'UTC';
    });
    const result = await gateway.runAgent({ prompt: 'Send me a digest every Sunday at 8', origin: 'console' });
    expect(result.status).toBe('ok');
    expect(result.toolCalls[0]).toMatchObject({ name: 'cronjob', isError: false });
    const [job] = await gateway.jobs.list();
    expect(job).toMatchObject({ name: 'digest', schedule: '0 8 * * 7', origin: 'console', deliver: 'origin' });
    expect(new Date(job!.nextRunAtMs!).getUTCDay()).toBe(0);
  });

  it('refuses a second job of the same name (issue #18 item 19): a name means one job', async () => {
    const { gateway } = await started();
    const a = await gateway.jobs.create({ schedule: 'every 1h', prompt: 'same', name: 'twin' });
    if (!a.ok) throw new Error(a.reason);
    expect(await gateway.jobs.create({ schedule: 'every 2h', prompt: 'same', name: 'Twin' })).toEqual({ ok: false, reason: `a job named "twin" already exists (${a.value.id}): choose another name` });
    expect(await gateway.jobs.find('twin')).toMatchObject({ ok: true, value: { id: a.value.id } });
  });
});
