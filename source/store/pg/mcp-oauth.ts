import type pg from 'pg';
import type { StoredOAuthClientInformation } from '@modelcontextprotocol/client';
import type { TokenFile, TokenStore, TokenStores } from '../../mcp/token-store.js';
import type { PgStore } from './pg-store.js';

interface Row {
  tokens: TokenFile['tokens'] | null;
  document_client: TokenFile['documentClient'] | null;
  discovery: TokenFile['discovery'] | null;
  pending_scope: string | null;
  registration: StoredOAuthClientInformation | null;
  cimd_off: string | null;
  version: number;
}

type Run = (sql: string, values: unknown[]) => Promise<{ rows: Row[] }>;

const COLUMNS = 'tokens, document_client, discovery, pending_scope, registration, cimd_off, version';

/**
 * MCP OAuth state in the cluster's PostgreSQL (`mcp_oauth`, migration 9): one row per server, so a
 * login on any node serves every node. Anyone who can read the database holds the tokens, as anyone
 * who can read a home holds its token files (docs/cluster.md).
 */
export function pgTokenStores(store: PgStore, now: () => number = Date.now): TokenStores {
  return { kind: 'postgres', of: (server) => pgTokenStore(store, server, now) };
}

function pgTokenStore(store: PgStore, server: string, now: () => number): TokenStore {
  const row = `the mcp_oauth row of server ${server}`;
  const where = { tokens: `${row} (tokens)`, client: `${row} (registration)`, marker: `${row} (cimd_off)` };
  const viaPool: Run = (sql, values) => store.query<Row>(sql, values);
  const viaClient = (client: pg.PoolClient): Run => (sql, values) => client.query<Row>(sql, values);

  const read = async (run: Run, lock = false): Promise<Row | undefined> =>
    (await run(`SELECT ${COLUMNS} FROM mcp_oauth WHERE server = $1${lock ? ' FOR UPDATE' : ''}`, [server])).rows[0];
  /** Sets columns, making the row when it does not exist yet. */
  const upsert = async (run: Run, set: Record<string, unknown>, bump: boolean): Promise<void> => {
    const names = Object.keys(set);
    const values = names.map((name) => set[name]);
    const casts = names.map((name, i) => `$${i + 3}${name === 'pending_scope' || name === 'cimd_off' ? '' : '::jsonb'}`);
    await run(`INSERT INTO mcp_oauth (server, updated_at_ms, version${names.map((n) => `, ${n}`).join('')})
      VALUES ($1, $2, ${bump ? 1 : 0}${casts.map((c) => `, ${c}`).join('')})
      ON CONFLICT (server) DO UPDATE SET updated_at_ms = $2${bump ? ', version = mcp_oauth.version + 1' : ''}${names.map((n) => `, ${n} = EXCLUDED.${n}`).join('')}`,
    [server, now(), ...values]);
  };
  const tokenColumns = (file: TokenFile) => ({
    tokens: json(file.tokens), document_client: json(file.documentClient), discovery: json(file.discovery), pending_scope: file.pendingScope ?? null,
  });
  /** Read, change and write the token columns under the row's lock (two writers never lose one's change). */
  const locked = <T>(work: (current: TokenFile, save: (next: TokenFile) => Promise<void>) => Promise<T>): Promise<T> =>
    store.transaction(async (client) => {
      const run = viaClient(client);
      // The row must exist to be locked: a server nobody logged in to yet has none.
      await run('INSERT INTO mcp_oauth (server, updated_at_ms) VALUES ($1, $2) ON CONFLICT (server) DO NOTHING', [server, now()]);
      const current = toTokenFile(await read(run, true));
      return work(current, (next) => upsert(run, tokenColumns(next), true));
    });

  return {
    where,
    readTokenFile: async () => toTokenFile(await read(viaPool)),
    updateTokenFile: (change) => locked((current, save) => save(change(current))),
    readRegistration: async () => (await read(viaPool))?.registration ?? undefined,
    writeRegistration: (info) => upsert(viaPool, { registration: json(info) }, false),
    removeRegistration: () => upsert(viaPool, { registration: null }, false),
    hasRegistration: async () => Boolean((await read(viaPool))?.registration),
    documentRefused: async () => Boolean((await read(viaPool))?.cimd_off),
    writeMarker: (reason) => upsert(viaPool, { cimd_off: reason }, false),
    clearMarker: () => upsert(viaPool, { cimd_off: null }, false),
    version: async () => (await read(viaPool))?.version ?? 0,
    exclusive: locked,
  };
}

function toTokenFile(row: Row | undefined): TokenFile {
  if (!row) return {};
  return {
    ...(row.tokens ? { tokens: row.tokens } : {}),
    ...(row.document_client ? { documentClient: row.document_client } : {}),
    ...(row.discovery ? { discovery: row.discovery } : {}),
    ...(row.pending_scope !== null ? { pendingScope: row.pending_scope } : {}),
  };
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
