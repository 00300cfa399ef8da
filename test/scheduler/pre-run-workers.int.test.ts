import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPreRunWorkers, defaultJobsRoot } from '../../source/scheduler/pre-run-workers.js';
import { writeScript } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

afterEach(() => vi.restoreAllMocks());

function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString())); done(); } });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

describe('Bree pre-run workers', () => {
  it('run from the compiled worker file in dist/, resolved from import.meta.url', () => {
    expect(defaultJobsRoot(pathToFileURL(path.join(repo, 'source/scheduler/pre-run-workers.ts')).href)).toBe(path.join(repo, 'dist/scheduler/jobs/'));
    expect(defaultJobsRoot(pathToFileURL(path.join(repo, 'dist/scheduler/pre-run-workers.js')).href)).toBe(path.join(repo, 'dist/scheduler/jobs/'));
    expect(fs.existsSync(path.join(repo, 'dist/scheduler/jobs/pre-run.js'))).toBe(true);
  });

  it('run scripts in worker threads, concurrently, and log through pino only (never the console)', async () => {
    const home = tempHome();
    const { logger, lines } = memoryLogger();
    const stdout = vi.spyOn(process.stdout, 'write');
    const consoleLog = vi.spyOn(console, 'log');
    const consoleInfo = vi.spyOn(console, 'info');
    const workers = createPreRunWorkers({ logger });
    const script = writeScript(home.root, 'hello.sh', 'echo "hello from $(pwd)"; echo warn >&2');
    const results = await Promise.all([1, 2, 3].map((n) => workers.run({ fireId: `f${n}`, script, timeoutMs: 5_000 })));
    for (const result of results) {
      expect(result).toMatchObject({ exitCode: 0, stdout: `hello from ${home.root}\n`, stderr: 'warn\n', timedOut: false, failure: null });
    }
    expect(workers.running).toBe(0);
    expect(lines.some((line) => line.component === 'bree' && String(line.msg).includes('Worker for job "pre-run-f1"'))).toBe(true);
    expect(stdout).not.toHaveBeenCalled();
    expect(consoleLog).not.toHaveBeenCalled();
    expect(consoleInfo).not.toHaveBeenCalled();
    await workers.stop();
  });

  it('reports a script that cannot start, and a missing worker build, as failures', async () => {
    const home = tempHome();
    const workers = createPreRunWorkers({ logger: pino({ level: 'silent' }) });
    const missing = await workers.run({ fireId: 'x', script: path.join(home.root, 'nope.sh'), timeoutMs: 5_000 });
    expect(missing.failure).toBeTruthy();
    const noBuild = createPreRunWorkers({ logger: pino({ level: 'silent' }), root: path.join(home.root, 'empty') });
    expect((await noBuild.run({ fireId: 'y', script: '/bin/true', timeoutMs: 5_000 })).failure).toContain('is missing: run npm run build');
  });

  it('stop() cancels a running script and kills its process group', async () => {
    const home = tempHome();
    const workers = createPreRunWorkers({ logger: pino({ level: 'silent' }) });
    const script = writeScript(home.root, 'long.sh', 'echo started > started.txt\nsleep 300');
    const pending = workers.run({ fireId: 'long', script, timeoutMs: 60_000 });
    while (!fs.existsSync(path.join(home.root, 'started.txt'))) await new Promise((resolve) => setTimeout(resolve, 20));
    await workers.stop();
    expect(await pending).toMatchObject({ cancelled: true });
  });
});
