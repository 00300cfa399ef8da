/**
 * What stops state.db from taking writes for a while: another process holding the write lock, a
 * full disk, an I/O error. These are conditions of the machine, not bugs: a write that meets one
 * fails fast with a `StoreUnavailableError` (intake answers 503), the fault is remembered until a
 * commit succeeds again, and writes that must not be lost wait in the kept-writes queue.
 */
export type StoreFaultKind = 'locked' | 'full' | 'io' | 'unreachable';

export interface StoreFault {
  kind: StoreFaultKind;
  /** SQLite's own words, for the log and /health (never holds data). */
  message: string;
  sinceMs: number;
}

/** SQLite's primary result codes (the low byte of an extended code). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;

/** The fault an error from node:sqlite (or the file system) stands for; undefined for anything else. */
export function storeFaultKind(error: unknown): StoreFaultKind | undefined {
  if (error instanceof StoreUnavailableError) return error.fault.kind;
  const { errcode, code } = (error ?? {}) as { errcode?: number; code?: string };
  if (typeof errcode === 'number') {
    const primary = errcode & 0xff;
    if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) return 'locked';
    if (primary === SQLITE_FULL) return 'full';
    if (primary === SQLITE_IOERR) return 'io';
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  return undefined;
}

const describe: Record<StoreFaultKind, string> = {
  locked: 'state.db is locked by another process',
  full: 'the disk holding state.db is full',
  io: 'state.db cannot be written (I/O error)',
  unreachable: 'the shared PostgreSQL store cannot be reached',
};

/** What a fault means, in the words the log, /health and the console's header use. */
export const faultDescription = (kind: StoreFaultKind): string => describe[kind];

/** A write refused because of a store fault: nothing was written; retry later. */
export class StoreUnavailableError extends Error {
  readonly code = 'STORE_UNAVAILABLE';
  constructor(readonly fault: StoreFault, readonly retryAfterSeconds: number) {
    super(`${describe[fault.kind]} (${fault.message})`);
    this.name = 'StoreUnavailableError';
  }
  /** What the operator can do about it. */
  get hint(): string {
    if (this.fault.kind === 'locked') return 'Another process holds a write transaction on state.db (a sqlite3 shell, a backup tool): end it; Switchboard carries on by itself.';
    if (this.fault.kind === 'unreachable') return 'Check that PostgreSQL runs and that this node can reach it (store.url, SWITCHBOARD_DATABASE_URL); nothing was accepted meanwhile, and senders retry.';
    if (this.fault.kind === 'full') return 'Free space on the disk of the Switchboard home; Switchboard carries on by itself once it can write.';
    return 'Check the disk and the file system of the Switchboard home (dmesg); Switchboard retries by itself.';
  }
}

export function faultSummary(fault: StoreFault): string {
  return describe[fault.kind];
}
