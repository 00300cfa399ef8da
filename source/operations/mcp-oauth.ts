import fs from 'node:fs';
import tls from 'node:tls';
import type { HomeLayout } from '../config/home.js';
import { loadOrCreateConfig, resolveConfig } from '../config/load.js';
import type { ConfigFile } from '../config/types.js';
import type { MetadataCheck } from '../mcp/client-metadata-check.js';
import type { LoginHandle, LoginOptions } from '../mcp/oauth-login.js';
import type { ResolvedMcpServer } from '../mcp/server-config.js';
import type { TokenStores } from '../mcp/token-store.js';
import { databaseUrl } from '../store/database-url.js';
import { OperatorError } from './errors.js';

/**
 * The OAuth commands that run in the operator's own process (`mcp login` needs the browser and the
 * terminal where the operator is; the running gateway picks the new tokens up by itself).
 */
export { checkClientMetadataUrl, clientMetadataDocument } from '../mcp/oauth-config.js';

const entryOf = (home: HomeLayout, name: string) => {
  const config = resolveConfig(loadOrCreateConfig(home).file, home);
  const servers = config.values.mcp_servers ?? {};
  return { config, entry: Object.hasOwn(servers, name) ? servers[name] : undefined };
};

export interface ServerLogin extends LoginHandle {
  server: ResolvedMcpServer;
}

/** Starts an OAuth login for an `auth: oauth` server of this home; `onWarning` hears configuration warnings. */
export async function startServerLogin(home: HomeLayout, name: string, options: Pick<LoginOptions, 'onUrl' | 'onNotice' | 'signal'> & { onWarning(text: string): void }): Promise<ServerLogin> {
  const { config, entry } = entryOf(home, name);
  if (!entry) throw new OperatorError('not_found', `No server "${name}" in mcp_servers of ${home.configFile}`, 'See the configured names: switchboard mcp list');
  const [{ pino }, { resolveMcpServer }, { startLogin }] = await Promise.all([
    import('pino'), import('../mcp/server-config.js'), import('../mcp/oauth-login.js'),
  ]);
  const warnings: string[] = [];
  const server = resolveMcpServer(name, entry, warnings, home.root);
  for (const warning of warnings) options.onWarning(warning);
  if (!server || server.auth !== 'oauth') throw new OperatorError('invalid', `server ${name} does not use OAuth`, `Set mcp_servers.${name}.auth to "oauth" on an HTTP (url) entry.`);
  const logger = pino({ level: 'warn' }, { write: (line: string) => options.onWarning((JSON.parse(line) as { msg: string }).msg) });
  const stores = await openTokenStores(home, config.values);
  const login = startLogin({ server, tokens: stores.tokens, logger, ...options });
  return { server, offer: login.offer, done: login.done.finally(() => stores.close()) };
}

/**
 * Where OAuth tokens live for a command in the operator's process: the cluster's PostgreSQL when
 * `SWITCHBOARD_DATABASE_URL` or `store.url` names one (every gateway node reads them there; the
 * command does not go through a running gateway, since the login needs this terminal and browser),
 * else the home's `mcp-tokens` folder. Close it when done.
 */
export async function openTokenStores(home: HomeLayout, values: ConfigFile): Promise<{ tokens: TokenStores; close(): Promise<void> }> {
  // Only OAuth servers need the database: `mcp list` of stdio servers works while it is away.
  const oauth = Object.values(values.mcp_servers ?? {}).some((entry) => (entry as { auth?: unknown }).auth === 'oauth');
  const url = oauth ? databaseUrl(values) : null;
  if (url) return (await import('../store/shared-store.js')).openSharedTokens(url);
  const { fileTokenStores, tokensDirOf } = await import('../mcp/token-store.js');
  return { tokens: fileTokenStores(tokensDirOf(home.root)), close: async () => {} };
}

/** Fetches a client metadata document (the server's `oauth.client_metadata_url`, or `url`) and checks spec 5.3 item 3. */
export async function checkMetadataDocument(home: HomeLayout, name: string, options: { url?: string; ca?: string }): Promise<{ url: string; checks: MetadataCheck[] }> {
  const { entry } = entryOf(home, name);
  if (!entry && !options.url) throw new OperatorError('not_found', `No server "${name}" in mcp_servers of ${home.configFile}`);
  const configured = (entry as { oauth?: { client_metadata_url?: unknown } } | undefined)?.oauth?.client_metadata_url;
  const url = options.url ?? (typeof configured === 'string' ? configured : undefined);
  if (!url) throw new OperatorError('invalid', `server ${name} has no oauth.client_metadata_url`, `Set mcp_servers.${name}.oauth.client_metadata_url or pass --url.`);
  // Loaded here: only this command needs undici.
  const [{ checkClientMetadataDocument }, { Agent, fetch: undiciFetch }] = await Promise.all([import('../mcp/client-metadata-check.js'), import('undici')]);
  let agent: InstanceType<typeof Agent> | undefined;
  if (options.ca) {
    let ca: string;
    try {
      ca = fs.readFileSync(options.ca, 'utf8');
    } catch (error) {
      throw new OperatorError('invalid', `--ca ${options.ca} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    agent = new Agent({ connect: { ca: [...tls.rootCertificates, ca] } });
  }
  const fetch = (target: string | URL, init?: RequestInit) =>
    undiciFetch(target, { ...(init as Parameters<typeof undiciFetch>[1]), ...(agent ? { dispatcher: agent } : {}) }) as unknown as Promise<Response>;
  try {
    return { url, checks: await checkClientMetadataDocument(url, fetch) };
  } finally {
    await agent?.close();
  }
}
