import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';

const running: RunningCli[] = [];
afterEach(() => stopClis(running));

describe('switchboard stop', () => {
  it('stops the gateway of this home in order and waits for it; with none running it says so and succeeds', { timeout: 60_000 }, async () => {
    const home = preparedHome();
    const gateway = startCli(['gateway', '--home', home.root]);
    running.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    const status = await runCli(['status', '--home', home.root]);
    expect(status.stdout).toContain(`stop      switchboard stop --home ${home.root}`);
    // A second gateway on the home is refused with the command that stops the first.
    const second = await runCli(['gateway', '--home', home.root]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Stop it first (switchboard stop --home ${home.root})`);

    const stopped = await runCli(['stop', '--home', home.root]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`Stopped the gateway (pid ${gateway.child.pid}) on ${home.root}\n`);
    // The command returned once the gateway had stopped, in order.
    expect(gateway.child.exitCode ?? (await gateway.exited).code).toBe(0);
    expect(gateway.output()).toContain('Gateway stopping: SIGTERM received');
    expect(fs.existsSync(home.lockFile)).toBe(false);

    const again = await runCli(['stop', '--home', home.root]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`No gateway is running on ${home.root}\n`);
    // A stopped cluster node's home says which node it is and where the cluster's view is.
    fs.writeFileSync(path.join(home.root, 'node-id'), 'vm-test1\n');
    expect((await runCli(['status', '--home', home.root])).stdout).toBe(`No gateway is running on ${home.root}\n`
      + '  cluster   this home is node vm-test1; a running node lists the cluster: switchboard status --home <its home>\n');
  });

  it('refuses --connect: a signal reaches only this machine', async () => {
    const result = await runCli(['stop', '--connect', 'tcp://127.0.0.1:1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stop works on a gateway of this machine (--home), not over --connect');
  });
});
