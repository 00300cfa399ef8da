import type { CommitGroups } from './group-commit.js';
import { PROBE_INTERVAL_MS } from './fault-gate.js';
import { storeFaultKind } from './store-fault.js';

export interface KeptWrites {
  /**
   * Writes now when the store takes writes; when it cannot (locked elsewhere, disk full), keeps the
   * write in memory and retries it, in order with the other kept writes, until it commits. Settles
   * when it is committed; rejects only for a write that can never succeed (a bug, a constraint),
   * which is also reported. A write whose group failed to commit left nothing behind (SQLite rolled
   * it back), so running it again cannot write it twice.
   */
  keep(write: () => void): Promise<void>;
  /** Writes waiting for the store. */
  pending(): number;
  /** Tries what is waiting once more (shutdown); what still cannot be written stays lost. */
  flushNow(): number;
}

interface Entry {
  write: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A finished run's result must not be lost, or recorded as a failure, because another process held
 * the write lock at the moment it finished (issue #18, item 3). Everything a run records goes through
 * here; intake does not (a webhook the store cannot take is refused with 503, and its sender retries).
 */
export function createKeptWrites(groups: CommitGroups, onLost: (error: unknown) => void): KeptWrites {
  const waiting: Entry[] = [];
  let timer: NodeJS.Timeout | undefined;

  const retryLater = (): void => {
    timer ??= setTimeout(() => {
      timer = undefined;
      drain();
    }, PROBE_INTERVAL_MS);
    timer.unref();
  };

  /** Runs an entry's write in the current group; a commit that fails later sends it back to the queue. */
  const attempt = (entry: Entry): 'written' | 'fault' => {
    try {
      groups.write(entry.write);
    } catch (error) {
      if (storeFaultKind(error)) return 'fault';
      entry.reject(error);
      onLost(error);
      return 'written';
    }
    groups.committed().then(entry.resolve, (error: unknown) => {
      if (!storeFaultKind(error)) {
        entry.reject(error);
        onLost(error);
        return;
      }
      waiting.push(entry); // its group did not commit: redone, after what was already waiting
      retryLater();
    });
    return 'written';
  };

  /** Writes what waits, oldest first, and stops at the first fault (order is kept). */
  const drain = (): number => {
    while (waiting.length > 0) {
      if (attempt(waiting[0]!) === 'fault') {
        retryLater();
        break;
      }
      waiting.shift();
    }
    return waiting.length;
  };

  return {
    keep(write) {
      return new Promise<void>((resolve, reject) => {
        const entry = { write, resolve, reject };
        if (waiting.length > 0) {
          waiting.push(entry);
          return;
        }
        if (attempt(entry) === 'fault') {
          waiting.push(entry);
          retryLater();
        }
      });
    },
    pending: () => waiting.length,
    flushNow: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      return drain();
    },
  };
}
