import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { cliPath, runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { tmuxServer } from '../helpers/tmux.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const server = tmuxServer('attach');
const { tmux, capture, send } = server;
const screens = (...sessions: string[]) => sessions.map((session) => `--- ${session} ---\n${capture(session)}`).join('\n');
async function both(sessions: string[], check: (screen: string) => boolean, what: string, timeoutMs = 15_000) {
  await waitUntil(() => sessions.every((session) => check(capture(session))), timeoutMs, `${what}; screens:\n${screens(...sessions)}`).catch((error: Error) => {
    throw new Error(`${error.message}\n${screens(...sessions)}`);
  });
}

const gateways: RunningCli[] = [];
afterEach(async () => {
  server.kill();
  await stopClis(gateways);
});

describe('consoles attached to a headless gateway (tmux)', () => {
  it('two consoles see the same webhook, approval, job pause; both survive a gateway restart and re-attach', { timeout: 180_000 }, async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', args: { command: 'rm -rf scratch && echo cleaned' } }] },
      { text: 'Cleaned.' },
    ], { repeatLast: true });
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted' };
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'Clean up after {action}', deliver: 'log' } };
      config.approvals = { headless: 'deny' }; // with a console attached, requests wait for it anyway
    });
    const start = async () => {
      const gateway = startCli(['gateway', '--home', home.root]);
      gateways.push(gateway);
      await gateway.waitFor('Control channel listening', 30_000);
      return gateway;
    };
    const gateway = await start();
    expect((await runCli(['cron', 'create', 'every 1h', 'hello', '--name', 'hourly', '--home', home.root])).code).toBe(0);

    const sessions = ['a', 'b'];
    for (const session of sessions) tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '45', `${process.execPath} ${cliPath} --attach --home ${home.root}`);
    await both(sessions, (screen) => /attached to pid \d+/.test(screen), 'both consoles attached');
    for (const session of sessions) send(session, '2');

    const url = /webhooks\s+(http:\/\/127\.0\.0\.1:\d+)/.exec((await runCli(['status', '--home', home.root])).stdout)![1]!;
    const body = JSON.stringify({ action: 'opened' });
    const posted = await fetch(`${url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request') }, body });
    expect(posted.status).toBe(202);
    await both(sessions, (screen) => /gh\s+pull_request\s+\S+\s+accepted/.test(screen), 'the webhook in both consoles');

    // The run asks to approve `rm -rf`: the dialog shows in both; approving in A closes it in B.
    await both(sessions, (screen) => screen.includes('Approval 1 of 1') && screen.includes('rm -rf scratch && echo cleaned'), 'the approval dialog in both');
    send('a', 'a');
    const approvedAt = Date.now();
    await both(['b'], (screen) => !screen.includes('Approval 1 of 1'), 'the dialog gone from B', 5_000);
    expect(Date.now() - approvedAt).toBeLessThan(1_000);
    await both(sessions, (screen) => /gh\s+pull_request\s+\S+\s+accepted\s+delivered/.test(screen), 'the run delivered in both');

    // A job paused from the CLI shows paused in both within a second.
    for (const session of sessions) send(session, '3');
    await both(sessions, (screen) => /hourly\s+every 1h\s+in /.test(screen), 'the job in both');
    expect((await runCli(['cron', 'pause', 'hourly', '--home', home.root])).code).toBe(0);
    const pausedAt = Date.now();
    await both(sessions, (screen) => /hourly\s+every 1h\s+paused/.test(screen), 'the job paused in both', 1_000);
    expect(Date.now() - pausedAt).toBeLessThan(1_000);

    // The gateway goes away: both say so and keep their panes; it comes back: both re-attach with complete panes.
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    // One frame with both (tmux can capture a frame Ink is still drawing).
    await both(sessions, (screen) => screen.includes('disconnected from the gateway') && /hourly\s+every 1h\s+paused/.test(screen), 'the disconnected banner over the kept Jobs pane in both');
    // Quitting now does not pretend the gateway keeps running: it is not answering.
    send('b', 'q');
    await both(['b'], (screen) => screen.includes('is not answering: this console is only waiting for it'), 'the leave prompt while disconnected');
    send('b', 'n');
    await both(['b'], (screen) => !screen.includes('is not answering'), 'the prompt gone');
    await start();
    await both(sessions, (screen) => !screen.includes('disconnected from the gateway') && /attached to pid \d+/.test(screen), 'both re-attached', 20_000);
    const newPid = /pid (\d+)/.exec((await runCli(['status', '--home', home.root])).stdout)![1]!;
    await both(sessions, (screen) => screen.includes(`attached to pid ${newPid}`) && /hourly\s+every 1h\s+paused/.test(screen), 'the new gateway and its jobs in both');

    // Quitting an attached console detaches: the prompt says the gateway keeps running, and it does.
    send('a', 'q');
    await both(['a'], (screen) => screen.includes('It keeps running'), 'the detach prompt');
    send('a', 'y');
    await waitUntil(() => { try { capture('a'); return false; } catch { return true; } }, 10_000, 'console A to quit');
    expect((await runCli(['status', '--home', home.root])).stdout).toContain(`Gateway running: pid ${newPid}`);
    await model.close();
  });
});
