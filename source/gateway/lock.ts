import { processStartTime } from '../infra/child-records.js';
import fs from 'node:fs';
import path from 'node:path';
import { commandFor, homeLayout } from '../config/home.js';
import { isAlive } from '../infra/process-alive.js';

export interface GatewayLockInfo {
  pid: number;
  startedAt: string;
  webhookUrl?: string;
  /** The holder's process start time (Linux /proc), so a pid reused by another process is not taken for it. */
  processStart?: string;
}

/** Raised when another live gateway holds the home. */
export class GatewayLockedError extends Error {
  readonly code = 'GATEWAY_LOCKED';
  constructor(readonly holder: GatewayLockInfo, readonly lockFile: string) {
    super(`Another gateway is already running on this home (pid ${holder.pid}, started ${holder.startedAt}); lock file ${lockFile}`);
    this.name = 'GatewayLockedError';
  }
  get hint(): string {
    return `Stop it first (${commandFor(homeLayout(path.dirname(this.lockFile)), 'stop')}), or use another home with --home DIR.`;
  }
}

/**
 * Takes the home's gateway lock: exclusive create, so two gateways racing cannot both win.
 * A lock left by a dead process is taken over.
 */
export function acquireGatewayLock(lockFile: string, info: GatewayLockInfo): { update(info: GatewayLockInfo): void; release(): void } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const stamped = (next: GatewayLockInfo) => JSON.stringify({ ...next, processStart: processStartTime(next.pid) });
      fs.writeFileSync(lockFile, stamped(info), { flag: 'wx', mode: 0o600 });
      return {
        update: (next) => fs.writeFileSync(lockFile, stamped(next), { mode: 0o600 }),
        release: () => {
          if (readLockFile(lockFile)?.pid === info.pid) fs.rmSync(lockFile, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLockFile(lockFile);
      if (holder && holds(holder)) throw new GatewayLockedError(holder, lockFile);
      fs.rmSync(lockFile, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the gateway lock ${lockFile}`);
}

/** The running gateway on this home, if any (stale locks count as none). */
export function runningGateway(lockFile: string): GatewayLockInfo | undefined {
  const holder = readLockFile(lockFile);
  return holder && holds(holder) ? holder : undefined;
}

function readLockFile(lockFile: string): GatewayLockInfo | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as GatewayLockInfo;
    return typeof value.pid === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lock's process still runs: the pid is alive and, where the start time can be read, it is the
 * same process that wrote the lock (after a crash and a reboot, the pid may belong to anything).
 */
function holds(holder: GatewayLockInfo): boolean {
  if (!isAlive(holder.pid)) return false;
  if (holder.processStart === undefined) return true;
  const now = processStartTime(holder.pid);
  return now === undefined || now === holder.processStart;
}
