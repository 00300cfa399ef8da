import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createCommitGroups, type CommitGroups } from './group-commit.js';
import { createKeptWrites, type KeptWrites } from './kept-writes.js';
import { migrations as allMigrations, type Migration } from './migrations.js';

/**
 * How long a writer waits for another process's lock before SQLITE_BUSY. A CLI command can wait; the
 * gateway cannot (the wait blocks its event loop), so it lowers it to GATEWAY_BUSY_TIMEOUT_MS.
 */
const BUSY_TIMEOUT_MS = 5_000;
export const GATEWAY_BUSY_TIMEOUT_MS = 200;

export interface Store extends CommitGroups {
  readonly file: string;
  readonly db: DatabaseSync;
  /** Writes that must not be lost to a store fault (source/store/kept-writes.ts). */
  keep: KeptWrites['keep'];
  keptPending: KeptWrites['pending'];
  /** Tries the kept writes once more; returns how many are still waiting. */
  flushKept: KeptWrites['flushNow'];
  setBusyTimeout(ms: number): void;
  /** Commits what is open, then closes. */
  close(): void;
}

/**
 * Opens (and migrates) state.db. WAL lets the gateway and CLI commands read and write at once;
 * the busy timeout makes a second writer wait its turn.
 */
export function openStore(file: string, migrations: readonly Migration[] = allMigrations): Store {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let db: DatabaseSync | undefined;
  let groups: ReturnType<typeof createCommitGroups>;
  try {
    db = new DatabaseSync(file);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    enableWal(db);
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    fs.chmodSync(file, 0o600); // webhook bodies and subscription secrets live here
    groups = createCommitGroups(db);
    migrate(db, migrations, groups.transaction);
  } catch (error) {
    db?.close();
    throw corrupt(error) ? new StoreCorruptError(file, (error as Error).message) : error;
  }
  let reportLost: (error: unknown) => void = () => {};
  const kept = createKeptWrites(groups, (error) => reportLost(error));
  return {
    file,
    db,
    ...groups,
    setGrouping(on, onCommitError) {
      reportLost = onCommitError ?? (() => {});
      groups.setGrouping(on, onCommitError);
    },
    keep: kept.keep,
    keptPending: kept.pending,
    flushKept: kept.flushNow,
    setBusyTimeout: (ms) => db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`),
    close: () => {
      groups.setGrouping(false);
      db.close();
    },
  };
}

/** SQLite's words for a file that is not (or no longer) a database it can read. */
function corrupt(error: unknown): boolean {
  return /not a database|malformed|file is encrypted|corrupt/i.test((error as Error)?.message ?? '');
}

/** state.db cannot be read as a database: what to do, instead of a stack trace. */
export class StoreCorruptError extends Error {
  readonly code = 'STORE_CORRUPT';
  readonly hint: string;
  constructor(readonly file: string, reason: string) {
    super(`${file} is not a usable SQLite database (${reason})`);
    this.name = 'StoreCorruptError';
    const aside = `${file}.corrupt-${new Date().toISOString().slice(0, 10)}`;
    this.hint = `Move it aside (mv ${file} ${aside}; also its -wal and -shm files if present): Switchboard then starts with a fresh store. What the old one held (deliveries, jobs, history) stays in the moved file.`;
  }
}

function migrate(db: DatabaseSync, migrations: readonly Migration[], transaction: Store['transaction']): void {
  const latest = migrations.at(-1)?.version ?? 0;
  if (userVersion(db) >= latest) return;
  transaction(() => {
    // Re-read inside the lock: another process may have migrated meanwhile.
    const current = userVersion(db);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    }
  });
}

function userVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  return row.user_version;
}

/**
 * Switching a fresh file to WAL needs an exclusive lock for which SQLite does not always call the busy
 * handler: two processes opening a new state.db at once can get "database is locked" at once. Retry for
 * as long as the busy timeout would have waited.
 */
function enableWal(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== 5 || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); // a synchronous 10 ms pause: openStore is synchronous
    }
  }
}

