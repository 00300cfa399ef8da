import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../source/config/types.js';
import { defaultConfig } from '../../source/config/default-config.js';
import { cliPath } from '../helpers/cli.js';
import { fromPackage, moduleRecorder } from '../helpers/module-recorder.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubHeaders } from '../helpers/webhooks.js';

/** The console's packages: the headless gateway must never load any of them (STYLE.md section 1). */
const consolePackages = /\/node_modules\/(ink|ink-[^/]+|react|react-[^/]+|yoga-layout|yoga-wasm-web|@inkjs\/[^/]+)\//;

/** `switchboard gateway` on a fresh home with `file`, recording the modules it loads (read after it exits). */
async function startRecordedGateway(file: ConfigFile) {
  const home = tempHome();
  fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
  fs.writeFileSync(home.configFile, JSON.stringify(file), { mode: 0o600 });
  const recorder = moduleRecorder(home.root);
  const child = spawn(process.execPath, ['--import', recorder.hook, cliPath, 'gateway', '--home', home.root], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const waitFor = async (check: (output: string) => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!check(output)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Timed out waiting for ${what}; output:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await waitFor((text) => text.includes('Control channel listening'), 'the gateway to start');
  return {
    home, waitFor,
    /** Stops it (SIGTERM) and returns its exit code and the modules it loaded. */
    async stop() {
      child.kill('SIGTERM');
      return { code: await exited, modules: recorder.modules() };
    },
  };
}

describe('the headless gateway (switchboard gateway)', () => {
  it('loads no console code (Ink, React, Yoga), nor prom-client with metrics off, from start through a webhook run to shutdown', async () => {
    const secret = 'headless-imports-secret-0123';
    const file = defaultConfig();
    file.platforms!.webhook = { enabled: true, extra: { host: '127.0.0.1', port: 0, routes: { probe: { secret, events: ['pull_request'], prompt: 'PR {number}', deliver: 'log' } } } };
    const gateway = await startRecordedGateway(file);
    let stopped: Awaited<ReturnType<typeof gateway.stop>>;
    try {
      const url = (JSON.parse(fs.readFileSync(gateway.home.lockFile, 'utf8')) as { webhookUrl: string }).webhookUrl;
      // One webhook through intake, run (dry-run model) and delivery: the run path loads its modules on first use.
      const body = JSON.stringify({ number: 7 });
      const response = await fetch(`${url}/webhooks/probe`, { method: 'POST', body, headers: githubHeaders(secret, body, 'pull_request') });
      expect(response.status).toBe(202);
      await gateway.waitFor((output) => /delivery \S+: delivered/.test(output), 'the run to be delivered');
    } finally {
      stopped = await gateway.stop();
    }
    expect(stopped.code).toBe(0);

    const { modules } = stopped;
    expect(modules.length).toBeGreaterThan(100); // the recorder saw the gateway's modules
    expect(modules.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
    expect(modules.filter((url) => consolePackages.test(url))).toEqual([]);
    expect(modules.filter((url) => /\/dist\/ui\//.test(url))).toEqual([]);
    // Metrics are off by default: prom-client is not loaded at all.
    expect(modules.filter((url) => url.includes('/node_modules/prom-client/'))).toEqual([]);
    // A dry-run gateway calls no model: no provider package.
    expect(modules.filter((url) => url.includes('/node_modules/@ai-sdk/'))).toEqual([]);
  });

  it('loads its model provider as it starts, before it reports ready (the first run then does not load it while webhooks arrive)', async () => {
    const file = defaultConfig();
    file.model = { provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', name: 'probe-model', api_key: 'sk-probe' }; // never called
    const gateway = await startRecordedGateway(file);
    const { code, modules } = await gateway.stop();
    expect(code).toBe(0);
    expect(fromPackage(modules, '@ai-sdk/openai-compatible').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'ai').length).toBeGreaterThan(0);
  });
});
