import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { fromPackage } from '../helpers/module-recorder.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

// A tmux server of our own (-L): never the operator's, never another test's.
const socket = `switchboard-console-start-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
afterEach(() => {
  try {
    tmux('kill-server');
  } catch {
    // already gone with the console
  }
});

/**
 * A preloaded hook that records every module resolved, in order, and the mark `FRAME` at the first
 * write to the terminal that carries the console's footer: what was loaded before the first frame
 * (and `UNDICI` before it when Node's bundled HTTP client was loaded by then).
 */
function frameRecorder(dir: string): { hook: string; entries(): string[] } {
  const hook = path.join(dir, 'record-frame.mjs');
  const list = path.join(dir, 'frame-modules.txt');
  fs.writeFileSync(hook, `
import fs from 'node:fs';
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.push(result.url); return result; } });
const write = process.stdout.write.bind(process.stdout);
let framed = false;
process.stdout.write = (chunk, ...rest) => {
  if (!framed && String(chunk).includes('Press ? for keys')) {
    framed = true;
    if (process.moduleLoadList.some((name) => name.includes('internal/deps/undici'))) seen.push('UNDICI');
    seen.push('FRAME');
  }
  return write(chunk, ...rest);
};
process.on('exit', () => fs.writeFileSync(${JSON.stringify(list)}, seen.join('\\n')));
`);
  return { hook, entries: () => fs.readFileSync(list, 'utf8').split('\n') };
}

/** Start time is measured by scripts/bench-cli.ts; this pins what made the console's first frame early. */
describe('console start: the first frame comes before the core', () => {
  it('draws from the config before loading the gateway, Fastify, pino or the AI SDK; then starts the gateway; no undici, no es-toolkit barrel, no scan of react-reconciler', { timeout: 60_000 }, async () => {
    const home = tempHome();
    execFileSync(process.execPath, [cliPath, 'config', 'set', 'platforms.webhook.extra.port', '0', '--home', home.root], { stdio: 'ignore' });
    const recorder = frameRecorder(home.root);
    tmux('new-session', '-d', '-s', 'console', '-x', '140', '-y', '45', `env -u NODE_OPTIONS -u NODE_ENV ${process.execPath} --import ${recorder.hook} ${cliPath} --home ${home.root}`);
    // The gateway starts after the frame: its listener's URL reaches the lock file and the header.
    const url = await waitUntil(() => {
      try {
        return (JSON.parse(fs.readFileSync(home.lockFile, 'utf8')) as { webhookUrl?: string }).webhookUrl;
      } catch {
        return undefined;
      }
    }, 30_000, 'the console gateway to bind its listener');
    await waitUntil(() => tmux('capture-pane', '-p', '-t', 'console').includes(url) || undefined, 10_000, 'the header with the listener URL');
    tmux('send-keys', '-t', 'console', 'q');
    await waitUntil(() => (fs.existsSync(home.lockFile) ? undefined : true), 30_000, 'the console to quit');
    await waitUntil(() => (fs.existsSync(path.join(home.root, 'frame-modules.txt')) ? true : undefined), 10_000, 'the module list');

    const entries = recorder.entries();
    const frame = entries.indexOf('FRAME');
    expect(frame).toBeGreaterThan(0);
    const before = entries.slice(0, frame);
    expect(fromPackage(before, 'ink').length).toBeGreaterThan(0);
    expect(before.filter((url) => /\/dist\/(gateway\/gateway|operations\/host|webhooks\/server|mcp\/manager)\.js$/.test(url))).toEqual([]);
    for (const name of ['fastify', 'pino', 'ai', '@modelcontextprotocol/client']) expect(fromPackage(before, name), name).toEqual([]);
    // Yoga's wasm is decoded from its data: URL without fetch(), which would load undici.
    expect(before).not.toContain('UNDICI');
    // After the frame, the gateway was loaded and started.
    expect(entries.slice(frame).some((url) => url.endsWith('/dist/gateway/gateway.js'))).toBe(true);
    // Ink's default import of react-reconciler is not scanned for export names (Node would follow it to the 814 KB development build).
    expect(entries.filter((url) => url.endsWith('/react-reconciler/cjs/react-reconciler.development.js'))).toEqual([]);
    expect(entries.some((url) => url.endsWith('/react-reconciler/cjs/react-reconciler.production.js'))).toBe(true);
    // Ink's one es-toolkit function, not the 400 modules of its compat barrel.
    expect(fromPackage(entries, 'es-toolkit').length).toBeGreaterThan(0);
    expect(fromPackage(entries, 'es-toolkit').length).toBeLessThan(10);
  });
});
