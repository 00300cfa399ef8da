import { asynchronous, type JobBackend } from '../store/async-domains.js';
import type { Store } from '../store/database.js';
import { createJobStore } from '../store/jobs.js';

/**
 * The scheduler's `externalChanges` for SQLite: `PRAGMA data_version` moves when another connection
 * (the CLI's process) commits, never on this connection's own writes. True when it moved since the
 * last call; the first call says true (nothing was known before it).
 */
export function sqliteExternalChanges(store: Pick<Store, 'db'>): () => boolean {
  const read = store.db.prepare('PRAGMA data_version');
  let last: number | undefined;
  return () => {
    const current = (read.get() as { data_version: number }).data_version;
    const moved = current !== last;
    last = current;
    return moved;
  };
}

/**
 * The SQLite job domain alone behind the asynchronous operations, as `sqliteBackends(store).jobs`
 * gives it, for a CLI command's own process: it loads no other store domain (docs/perf/cli-start.md).
 */
export function sqliteJobBackend(store: Store): JobBackend {
  return asynchronous(createJobStore(store));
}
