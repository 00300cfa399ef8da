import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { until } from '../helpers/mcp.js';
import { isAlive } from '../helpers/process.js';
import { writeScript } from '../helpers/scheduler.js';
import { tempHome } from '../helpers/temp-home.js';

const started: RunningCli[] = [];
const strays: number[] = [];
afterEach(async () => {
  for (const running of started.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
    await running.exited;
  }
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

/** Alive and not a zombie waiting for a parent that does not reap it (PID 1 in a container may not). */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const readPid = (file: string) => (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) || undefined : undefined);

describe.runIf(process.platform === 'linux')('children of a gateway killed with SIGKILL (issue #18 item 14)', () => {
  it('a pre-run script and what it started outlive the gateway; the next start on the home kills them', { timeout: 120_000 }, async () => {
    const home = tempHome();
    const cli = (...args: string[]) => runCli([...args, '--home', home.root]);
    expect((await cli('config', 'set', 'platforms.webhook.extra.port', '0')).code).toBe(0);
    const scriptPidFile = path.join(home.root, 'script.pid');
    const sleepPidFile = path.join(home.root, 'sleep.pid');
    const script = writeScript(path.join(home.root, 'scripts'), 'slow.sh', `sleep 300 &\necho $! > ${sleepPidFile}\necho $$ > ${scriptPidFile}\nwait`);
    expect((await cli('cron', 'create', 'every 1d', 'Report', '--script', script, '--name', 'slow')).code).toBe(0);

    const first = startCli(['gateway', '--home', home.root]);
    started.push(first);
    await first.waitFor('Scheduler started', 30_000);
    started.push(startCli(['cron', 'run', 'slow', '--home', home.root])); // waits for a result that never comes
    const scriptPid = await until(() => readPid(scriptPidFile), 'the script to start');
    const sleepPid = await until(() => readPid(sleepPidFile), 'the script to start sleep');
    strays.push(scriptPid, sleepPid);
    await until(() => fs.existsSync(path.join(home.childrenDir, `${scriptPid}.json`)), 'the script\'s pid file under run/children');

    first.child.kill('SIGKILL');
    await first.exited;
    // What the fault test saw: both still run, reparented, after the gateway is gone.
    expect(running(scriptPid) && running(sleepPid)).toBe(true);

    const second = startCli(['gateway', '--home', home.root]);
    started.push(second);
    await second.waitFor('Scheduler started', 30_000);
    expect(second.output()).toContain(`Killed the process group of pre-run script ${script} (pid ${scriptPid}), left running by pid ${first.child.pid}, which is gone`);
    await until(() => !running(scriptPid) && !running(sleepPid), 'the orphans to be killed', 5_000);
    expect(fs.readdirSync(home.childrenDir).filter((name) => name === `${scriptPid}.json`)).toEqual([]);
  });
});
