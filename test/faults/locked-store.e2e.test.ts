import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../fixtures/scripted-model.js';
import { preparedHome, startHost } from '../helpers/host.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Another process takes state.db's write lock (as a sqlite3 shell in a transaction would) until told to commit. */
async function holdWriteLock(file: string): Promise<{ child: ChildProcess; release(): Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve()));
  return {
    child,
    release: async () => {
      child.stdin!.write('commit\n');
      await once(child, 'exit');
    },
  };
}

async function post(url: string, deliveryId: string) {
  const body = JSON.stringify({ action: 'opened' });
  const started = performance.now();
  const response = await fetch(`${url}/webhooks/hook`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'push', deliveryId) }, body });
  return { response, ms: performance.now() - started, json: (await response.json()) as Record<string, unknown> };
}

async function health(url: string) {
  const started = performance.now();
  const response = await fetch(`${url}/health`);
  return { status: response.status, ms: performance.now() - started, json: (await response.json()) as { status: string; store: { fault: { kind: string } | null; keptWrites: number } } };
}

describe('another process holds the write lock on state.db (issue #18, item 3)', () => {
  it('intake answers 503 with Retry-After at once, /health is not blocked, and a run that finishes meanwhile keeps its result', { timeout: 60_000 }, async () => {
    const model: ScriptedModel = await startScriptedModel([{ text: 'The PR looks fine.', delayMs: 1500 }], { repeatLast: true });
    cleanups.push(() => model.close());
    const home = preparedHome((config) => {
      config.model = { provider: 'openai-compatible', base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
      config.platforms!.webhook!.extra!.routes = { hook: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } };
    });
    const host = await startHost(home);
    const url = host.gateway.snapshot().webhook.url!;
    const row = (deliveryId: string) => host.store.db.prepare('SELECT state, run_status AS runStatus, output FROM webhook_deliveries WHERE delivery_id = ?').get(deliveryId);

    // A run is waiting on the model when the lock is taken; it finishes while the lock is held.
    expect((await post(url, 'before-lock')).response.status).toBe(202);
    await waitUntil(() => model.requests.length === 1, 10_000, 'the run asking the model');
    const lock = await holdWriteLock(home.stateDb);

    const refused = await post(url, 'while-locked');
    expect(refused.response.status).toBe(503);
    expect(refused.ms).toBeLessThan(1500); // it was 500 after 5 s
    expect(refused.response.headers.get('retry-after')).toBe('1');
    expect(refused.json).toMatchObject({ error: 'Service unavailable', route: 'hook', message: expect.stringContaining('state.db is locked by another process') });

    const during = await health(url);
    expect(during.status).toBe(503);
    expect(during.ms).toBeLessThan(1000); // it was blocked 6.8 s
    expect(during.json).toMatchObject({ status: 'unavailable', store: { fault: { kind: 'locked' } } });

    // The run's answer arrives under the lock: kept in memory, not recorded as a failure.
    await waitUntil(async () => (await health(url)).json.store.keptWrites > 0, 10_000, 'the finished run kept until it can be written');
    expect(row('before-lock')).toMatchObject({ state: 'running' });

    await lock.release();
    await waitUntil(() => (row('before-lock') as { state: string } | undefined)?.state === 'delivered', 10_000, 'the kept result written and delivered');
    expect(row('before-lock')).toMatchObject({ runStatus: 'ok', output: 'The PR looks fine.' });
    const runs = host.store.db.prepare("SELECT status, output FROM runs WHERE origin LIKE 'webhook:hook:before-lock'").all();
    expect(runs).toEqual([{ status: 'ok', output: 'The PR looks fine.' }]);
    // The refused request left nothing behind; the sender's retry is accepted now.
    expect(row('while-locked')).toBeUndefined();
    expect((await post(url, 'while-locked')).response.status).toBe(202);
    const after = await health(url);
    expect(after).toMatchObject({ status: 200, json: { status: 'ok', store: { fault: null, keptWrites: 0 } } });
  });
});

describe('the console while state.db is locked', () => {
  it('shows why webhooks are refused in a banner under the header, and drops it once writes commit again', { timeout: 60_000 }, async () => {
    const { renderConsole } = await import('../helpers/console.js');
    const { waitForFrame } = await import('../helpers/ink.js');
    const view = await renderConsole({ size: { columns: 120, rows: 30 }, edit: (config) => { config.platforms!.webhook!.extra!.routes = { hook: { secret: SECRET, prompt: 'Review {action}', deliver: 'log' } }; } });
    cleanups.push(view.close);
    const lock = await holdWriteLock(view.home.stateDb);
    expect((await view.gateway.webhooks.test('hook')).ok).toBe(true); // through the intake: answered 503
    await waitForFrame(view.lastFrame, (frame) => frame.includes('state.db is locked by another process since') && frame.includes('webhooks are refused with 503'));
    await lock.release();
    await waitUntil(async () => {
      const result = await view.gateway.webhooks.test('hook');
      return result.ok && result.value.status === 202;
    }, 10_000, 'a webhook accepted again');
    await waitForFrame(view.lastFrame, (frame) => !frame.includes('webhooks are refused with 503'));
  });
});
