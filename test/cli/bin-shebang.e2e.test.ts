import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { binNodeFlags } from '../../scripts/bench-lib.js';
import { cliPath, runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const running: RunningCli[] = [];
afterEach(() => stopClis(running.splice(0)));

/** The command line the kernel has for `pid` now (after any execve). */
function commandLineOf(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

/** Starts `gateway` on a fresh home (ephemeral port) with `nodeFlags`; its spawned pid once it listens. */
async function gatewayStartedWith(nodeFlags: string[]): Promise<{ pid: number; home: string }> {
  const home = tempHome().root;
  await runCli(['--home', home, 'config', 'set', 'platforms.webhook.extra.port', '0']);
  const gateway = startCli(['--home', home, 'gateway'], { nodeFlags });
  running.push(gateway);
  await gateway.waitFor('Control channel listening');
  return { pid: gateway.child.pid!, home };
}

describe('the switchboard bin', () => {
  it('starts Node without flags (each V8 flag costs every command its built-ins\' code cache) and runs through its shebang', () => {
    expect(fs.readFileSync(cliPath, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env node');
    expect(binNodeFlags(cliPath)).toEqual([]);
    // npm makes a bin executable when it installs it; the build does not.
    fs.chmodSync(cliPath, 0o755);
    const nodeDir = path.dirname(process.execPath);
    const run = spawnSync(cliPath, ['--version'], { encoding: 'utf8', env: { ...process.env, PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ''}` } });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.status).toBe(0);
  });

  it('runs the headless gateway in the same process with its young generation held small (execve adds the flag)', async () => {
    const { pid, home } = await gatewayStartedWith([]);
    expect(commandLineOf(pid)).toEqual([process.execPath, '--max-semi-space-size=4', cliPath, '--home', home, 'gateway']);
    const status = await runCli(['--home', home, 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid });
  });

  it('keeps a semi-space size the operator gave (npm start gives the same one), and other Node flags', async () => {
    const { pid } = await gatewayStartedWith(['--max-semi-space-size=8']);
    expect(commandLineOf(pid).filter((arg) => arg.startsWith('--'))).toEqual(['--max-semi-space-size=8', '--home']);
    const withOthers = await gatewayStartedWith(['--stack-size=2000']);
    expect(commandLineOf(withOthers.pid).slice(1, 3)).toEqual(['--stack-size=2000', '--max-semi-space-size=4']);
  });
});
