import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../fixtures/scripted-model.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function gateway(home: string): RunningCli {
  const child = startCli(['gateway', '--home', home]);
  cleanups.push(async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.exited;
  });
  return child;
}

describe('kill -9 while a webhook run and a job run wait on the model (issue #18, item 2)', () => {
  it('closes both runs as interrupted at the next start, runs the webhook again, and the job shows the failure', { timeout: 90_000 }, async () => {
    // The first two model calls never answer before the kill; after the restart the model answers at once.
    const model = await startScriptedModel([{ text: 'too late', delayMs: 120_000 }, { text: 'too late', delayMs: 120_000 }, { text: 'Answered after the restart.' }], { repeatLast: true });
    cleanups.push(() => model.close());
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      config.platforms!.webhook!.extra!.routes = { hook: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } };
    });
    const first = gateway(home.root);
    const url = /Webhook listener on (http:\/\/127\.0\.0\.1:\d+)/.exec(await first.waitFor(/Webhook listener on http:\/\/127\.0\.0\.1:\d+/, 30_000))![1]!;
    await first.waitFor('Control channel listening', 30_000);

    const body = JSON.stringify({ action: 'opened' });
    const posted = await fetch(`${url}/webhooks/hook`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', 'crash-me') }, body });
    expect(posted.status).toBe(202);
    const created = JSON.parse((await runCli(['cron', 'create', 'every 1d', 'Summarise the day', '--name', 'daily', '--deliver', 'log', '--json', '--home', home.root])).stdout) as { id: string };
    const running = startCli(['cron', 'run', created.id, '--home', home.root]);
    cleanups.push(() => void running.child.kill('SIGKILL'));
    await waitUntil(() => model.requests.length === 2, 20_000, 'both runs waiting on the model');

    first.child.kill('SIGKILL');
    await first.exited;

    const second = gateway(home.root);
    await second.waitFor('Control channel listening', 30_000);
    expect(second.output()).toMatch(/2 agent run\(s\) left running by a stopped gateway were closed as interrupted/);
    expect(second.output()).toMatch(/1 job run\(s\) left running by a stopped gateway were closed as interrupted/);

    // The accepted delivery had not finished: it runs again, and is delivered once.
    const db = new DatabaseSync(home.stateDb, { readOnly: true });
    cleanups.push(() => db.close());
    const delivery = () => db.prepare("SELECT state, run_status AS runStatus, output FROM webhook_deliveries WHERE delivery_id = 'crash-me'").get() as { state: string; runStatus: string; output: string };
    await waitUntil(() => delivery().state === 'delivered', 30_000, 'the interrupted webhook run run again and delivered');
    expect(delivery()).toMatchObject({ runStatus: 'ok', output: 'Answered after the restart.' });
    const runs = db.prepare("SELECT origin, status, error FROM runs ORDER BY started_at_ms").all() as Array<{ origin: string; status: string; error: string | null }>;
    expect(runs.filter((run) => run.origin === 'webhook:hook:crash-me').map((run) => run.status)).toEqual(['interrupted', 'ok']);
    expect(runs.filter((run) => run.origin === `job:${created.id}`)).toEqual([{ origin: `job:${created.id}`, status: 'interrupted', error: 'the gateway stopped during this run' }]);

    // The job's run is closed as interrupted and counts as a failure.
    const jobRuns = JSON.parse((await runCli(['cron', 'runs', created.id, '--json', '--home', home.root])).stdout) as Array<{ status: string }>;
    expect(jobRuns.map((run) => run.status)).toEqual(['interrupted']);
    const shown = JSON.parse((await runCli(['cron', 'show', created.id, '--json', '--home', home.root])).stdout) as Record<string, unknown>;
    expect(JSON.stringify(shown)).toMatch(/"interrupted"/);
    expect(db.prepare('SELECT last_status AS lastStatus, consecutive_failures AS failures FROM jobs WHERE id = ?').get(created.id)).toEqual({ lastStatus: 'interrupted', failures: 1 });
  });
});
