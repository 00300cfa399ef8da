import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime, reapOrphans, recordChild } from '../../source/infra/child-records.js';
import { until } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function sleeper(): ChildProcess & { pid: number } {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** A pid that belonged to a process which has exited (ours, reaped). */
async function deadPid(): Promise<{ pid: number; startTime: string }> {
  const child = spawn('true');
  const pid = child.pid!;
  const startTime = processStartTime(pid) ?? '1';
  await new Promise((resolve) => child.once('exit', resolve));
  return { pid, startTime };
}

describe.runIf(process.platform === 'linux')('reapOrphans: pid plus start time', () => {
  it('kills a recorded child whose owner is gone; spares a reused pid and a child whose owner still runs', async () => {
    const dir = tempHome().childrenDir;
    const owner = await deadPid();
    const orphan = sleeper();
    const reused = sleeper();
    const owned = sleeper();
    fs.mkdirSync(dir, { recursive: true });
    const write = (pid: number, record: object) => fs.writeFileSync(path.join(dir, `${pid}.json`), JSON.stringify(record));
    write(orphan.pid, { pid: orphan.pid, startTime: processStartTime(orphan.pid), command: 'orphan', ownerPid: owner.pid, ownerStartTime: owner.startTime });
    // The pid now names another process: its start time differs from the record's.
    write(reused.pid, { pid: reused.pid, startTime: '1', command: 'reused', ownerPid: owner.pid, ownerStartTime: owner.startTime });
    const forget = recordChild(dir, owned.pid, 'owned'); // owner: this test process, alive

    const warnings: string[] = [];
    const reaped = reapOrphans(dir, (message) => warnings.push(message));
    expect(reaped).toEqual([{ pid: orphan.pid, command: 'orphan', ownerPid: owner.pid }]);
    expect(warnings).toEqual([`Killed the process group of orphan (pid ${orphan.pid}), left running by pid ${owner.pid}, which is gone`]);
    await until(() => exited(orphan), 'the orphan to die');
    expect(exited(reused) || exited(owned)).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([`${owned.pid}.json`]);
    forget();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
