import { ConfigError } from '../config/errors.js';
import type { StoreBackends } from './async-domains.js';
import { shownDatabaseUrl } from './database-url.js';
import type { EventChannel } from './pg/event-channel.js';
import type { NodeRegistry } from './pg/nodes.js';

/** A PostgreSQL store several gateways share (cluster mode, docs/cluster.md). */
export interface SharedStore {
  backends: StoreBackends;
  /** The URL without its password, for lines and errors. */
  shown: string;
  nodeId: string;
  heartbeatMs: number;
  nodes: NodeRegistry;
  /** The domains as another node sees them: to recover the work of a node that went silent. */
  backendsOf(nodeId: string): StoreBackends;
  /** LISTEN/NOTIFY between the nodes (source/store/pg/event-channel.ts). */
  openEvents(onPayload: (payload: string) => void, onTrouble: (error: unknown) => void): Promise<EventChannel>;
  close(): Promise<void>;
}

/** How often a node says it is alive; silent for 3 of these, it is down and its work is taken over. */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/**
 * Connects and migrates (under the migration lock, so nodes starting together migrate once). `pg`
 * loads only here: a home on SQLite never loads it.
 */
export async function openSharedStore(url: string, nodeId: string, options: { heartbeatMs?: number; now?: () => number } = {}): Promise<SharedStore> {
  const shown = shownDatabaseUrl(url);
  const now = options.now ?? Date.now;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const [{ openPgStore }, { pgBackends }, { createNodeRegistry }] = await Promise.all([import('./pg/pg-store.js'), import('./pg/backends.js'), import('./pg/nodes.js')]);
  let store: Awaited<ReturnType<typeof openPgStore>>;
  try {
    store = await openPgStore(url);
  } catch (error) {
    const reason = (error as Error).message.replaceAll(url, shown);
    throw new ConfigError('DATABASE_UNREACHABLE', `Cannot open the PostgreSQL store at ${shown}: ${reason}`,
      'Check store.url (or SWITCHBOARD_DATABASE_URL), that PostgreSQL runs and that the user may connect and create tables; remove the setting to use the SQLite file.');
  }
  // Heartbeats go through a connection of their own: behind a flood of accepts in the main pool,
  // a node that is perfectly alive would look silent to the others.
  const beats = await openPgStore(url, [], { connections: 1 }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  return {
    backends: pgBackends(store, now, nodeId), shown, nodeId, heartbeatMs,
    nodes: createNodeRegistry(beats, nodeId, heartbeatMs, now),
    backendsOf: (other) => pgBackends(store, now, other),
    openEvents: async (onPayload, onTrouble) => (await import('./pg/event-channel.js')).openEventChannel(url, onPayload, onTrouble),
    close: async () => {
      await beats.close();
      await store.close();
    },
  };
}
