import fs from 'node:fs';
import path from 'node:path';

/**
 * Pid files for the children we start in their own process group (pre-run scripts, gh), so a gateway
 * killed with SIGKILL does not leave them running for good: the next start kills what is left.
 * A process is named by its pid plus its start time (field 22 of /proc/<pid>/stat), so a pid the
 * system has since given to another process is never signalled. Without /proc (not Linux) nothing
 * can be proven and nothing is killed; the files are still cleaned up.
 */
interface ChildRecord {
  pid: number;
  startTime: string;
  command: string;
  /** The process that started the child: while it lives, the child is not an orphan (`cron run` next to a gateway). */
  ownerPid: number;
  ownerStartTime: string;
}

export interface ReapedChild {
  pid: number;
  command: string;
  ownerPid: number;
}

/** Clock ticks since boot at which `pid` started; undefined when it does not exist or there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 is "(comm)" and may hold spaces or parentheses: count from the last ")". Field 3 comes next.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[22 - 3];
  } catch {
    return undefined;
  }
}

const fileOf = (dir: string, pid: number) => path.join(dir, `${pid}.json`);

/**
 * Writes `<dir>/<pid>.json` for a child that just started; returns the function that removes it
 * (call it once the child has exited). A no-op without a folder, a pid or /proc.
 */
export function recordChild(dir: string | undefined, pid: number | undefined, command: string): () => void {
  const startTime = pid === undefined ? undefined : processStartTime(pid);
  const ownerStartTime = processStartTime(process.pid);
  if (!dir || pid === undefined || startTime === undefined || ownerStartTime === undefined) return () => {};
  const record: ChildRecord = { pid, startTime, command, ownerPid: process.pid, ownerStartTime };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(fileOf(dir, pid), JSON.stringify(record), { mode: 0o600 });
  } catch {
    return () => {}; // a child without a record only loses the clean-up after a crash
  }
  return () => fs.rmSync(fileOf(dir, pid), { force: true });
}

/**
 * At gateway start (after the home lock): for every record whose owner is gone, SIGKILL the child's
 * process group if the child is still the same process; remove the record either way.
 */
export function reapOrphans(dir: string, warn: (message: string) => void = () => {}): ReapedChild[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const reaped: ReapedChild[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const record = readRecord(file);
    if (record && processStartTime(record.ownerPid) === record.ownerStartTime) continue; // its owner still runs it
    if (record && processStartTime(record.pid) === record.startTime) {
      try {
        process.kill(-record.pid, 'SIGKILL');
        reaped.push({ pid: record.pid, command: record.command, ownerPid: record.ownerPid });
        warn(`Killed the process group of ${record.command} (pid ${record.pid}), left running by pid ${record.ownerPid}, which is gone`);
      } catch {
        // gone in the meantime
      }
    }
    fs.rmSync(file, { force: true });
  }
  return reaped;
}

function readRecord(file: string): ChildRecord | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ChildRecord>;
    if (typeof value.pid !== 'number' || typeof value.startTime !== 'string' || typeof value.ownerPid !== 'number' || typeof value.ownerStartTime !== 'string') return undefined;
    return { pid: value.pid, startTime: value.startTime, command: String(value.command ?? ''), ownerPid: value.ownerPid, ownerStartTime: value.ownerStartTime };
  } catch {
    return undefined;
  }
}
