import { ConfigError } from '../config/errors.js';
import type { StoreBackends } from './async-domains.js';
import { shownDatabaseUrl } from './database-url.js';

/** A PostgreSQL store several gateways share (cluster mode, docs/cluster.md). */
export interface SharedStore {
  backends: StoreBackends;
  /** The URL without its password, for lines and errors. */
  shown: string;
  nodeId: string;
  close(): Promise<void>;
}

/**
 * Connects and migrates (under the migration lock, so nodes starting together migrate once). `pg`
 * loads only here: a home on SQLite never loads it.
 */
export async function openSharedStore(url: string, nodeId: string, now: () => number = Date.now): Promise<SharedStore> {
  const shown = shownDatabaseUrl(url);
  const [{ openPgStore }, { pgBackends }] = await Promise.all([import('./pg/pg-store.js'), import('./pg/backends.js')]);
  let store: Awaited<ReturnType<typeof openPgStore>>;
  try {
    store = await openPgStore(url);
  } catch (error) {
    const reason = (error as Error).message.replaceAll(url, shown);
    throw new ConfigError('DATABASE_UNREACHABLE', `Cannot open the PostgreSQL store at ${shown}: ${reason}`,
      'Check store.url (or SWITCHBOARD_DATABASE_URL), that PostgreSQL runs and that the user may connect and create tables; remove the setting to use the SQLite file.');
  }
  return { backends: pgBackends(store, now, nodeId), shown, nodeId, close: () => store.close() };
}
