import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/process.js';
import { cliPath, runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

const running: RunningCli[] = [];
const pids: number[] = [];
afterEach(async () => {
  await stopClis(running);
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const lockPid = (root: string) => (JSON.parse(fs.readFileSync(path.join(root, 'gateway.lock'), 'utf8')) as { pid: number }).pid;

describe('the headless gateway and signals', () => {
  it('stops in order on SIGINT after config.json was written through it (conf loads when-exit, which used to re-send the signal)', async () => {
    const home = preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    const set = await runCli(['config', 'set', 'logging.level', 'debug', '--home', home.root]);
    expect(set.stdout + set.stderr).toMatch(/running gateway \(pid \d+\) needs a restart/);
    gateway.child.kill('SIGINT');
    const { code } = await gateway.exited;
    expect(code).toBe(0);
    expect(gateway.output()).toContain('Gateway stopping: SIGINT received');
    expect(gateway.output()).not.toContain('Second signal');
    expect(fs.existsSync(path.join(home.root, 'gateway.lock'))).toBe(false);
    expect(fs.existsSync(home.controlSocket)).toBe(false);
  });

  it('on a terminal, SIGHUP (the terminal closed) stops it in order', { timeout: 60_000 }, async () => {
    const home = preparedHome();
    // `script` gives the gateway a pseudo-terminal, as a terminal window or tmux pane would.
    const terminal = spawn('script', ['-qec', `${process.execPath} ${cliPath} gateway --home ${home.root}`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    terminal.stdout.on('data', (chunk: Buffer) => (output += chunk));
    await waitUntil(() => fs.existsSync(home.controlSocket) && output.includes('Control channel listening'), 30_000, 'the gateway under script to listen');
    const pid = lockPid(home.root);
    pids.push(pid);
    process.kill(pid, 'SIGHUP');
    await waitUntil(() => !isAlive(pid), 15_000, 'the gateway to stop');
    expect(output).toContain('Gateway stopping: SIGHUP received');
    expect(fs.existsSync(path.join(home.root, 'gateway.lock'))).toBe(false);
    terminal.kill('SIGKILL');
  });

  it('without a terminal too, SIGHUP stops it in order', async () => {
    const home = preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    gateway.child.kill('SIGHUP');
    expect((await gateway.exited).code).toBe(0);
    expect(gateway.output()).toContain('Gateway stopping: SIGHUP received');
    expect(fs.existsSync(path.join(home.root, 'gateway.lock'))).toBe(false);
  });
});
