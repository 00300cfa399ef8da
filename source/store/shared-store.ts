import { ConfigError } from '../config/errors.js';
import type { TokenStores } from '../mcp/token-store.js';
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
  /** MCP OAuth tokens, registrations and markers for every node (`mcp_oauth`, store/pg/mcp-oauth.ts). */
  mcpTokens: TokenStores;
  /** LISTEN/NOTIFY between the nodes (source/store/pg/event-channel.ts). */
  openEvents(onPayload: (payload: string) => void, onTrouble: (error: unknown) => void): Promise<EventChannel>;
  close(): Promise<void>;
}

/** How often a node says it is alive; silent for 3 of these, it is down and its work is taken over. */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/** A database that cannot be opened, as the operator's error: the URL without its password, what to check. */
async function openOrExplain<T>(open: () => Promise<T>, url: string): Promise<T> {
  try {
    return await open();
  } catch (error) {
    const shown = shownDatabaseUrl(url);
    const reason = (error as Error).message.replaceAll(url, shown);
    throw new ConfigError('DATABASE_UNREACHABLE', `Cannot open the PostgreSQL store at ${shown}: ${reason}`,
      'Check store.url (or SWITCHBOARD_DATABASE_URL), that PostgreSQL runs and that the user may connect and create tables; remove the setting to use the SQLite file.');
  }
}

/**
 * The cluster's MCP OAuth tokens alone, for a command in the operator's own process (`mcp login`,
 * `mcp test`): a pool of two connections, closed by the caller.
 */
export async function openSharedTokens(url: string): Promise<{ tokens: TokenStores; close(): Promise<void> }> {
  const [{ openPgStore }, { pgTokenStores }] = await Promise.all([import('./pg/pg-store.js'), import('./pg/mcp-oauth.js')]);
  const store = await openOrExplain(() => openPgStore(url, undefined, { connections: 2 }), url);
  return { tokens: pgTokenStores(store), close: () => store.close() };
}

/**
 * Connects and migrates (under the migration lock, so nodes starting together migrate once). `pg`
 * loads only here: a home on SQLite never loads it.
 */
export async function openSharedStore(url: string, nodeId: string, options: { heartbeatMs?: number; now?: () => number } = {}): Promise<SharedStore> {
  const shown = shownDatabaseUrl(url);
  const now = options.now ?? Date.now;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const [{ openPgStore }, { pgBackends }, { createNodeRegistry }, { pgTokenStores }] = await Promise.all([
    import('./pg/pg-store.js'), import('./pg/backends.js'), import('./pg/nodes.js'), import('./pg/mcp-oauth.js'),
  ]);
  const store = await openOrExplain(() => openPgStore(url), url);
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
    mcpTokens: pgTokenStores(store, now),
    openEvents: async (onPayload, onTrouble) => (await import('./pg/event-channel.js')).openEventChannel(url, onPayload, onTrouble),
    close: async () => {
      await beats.close();
      await store.close();
    },
  };
}
