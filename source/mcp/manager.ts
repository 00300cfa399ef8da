import path from 'node:path';
import type { Logger } from 'pino';
import type { ApprovalRequester, ToolRegistry } from '../agent/types.js';
import type { ConfigFile } from '../config/types.js';
import { buildCatalog, type CatalogEntry } from './catalog.js';
import { createMcpConnection, type ConnectionDeps, type McpConnection, type McpServerState } from './connection.js';
import type { LoginHandle, LoginOptions } from './oauth-login.js';
import { resolveMcpServers, type ResolvedMcpServer } from './server-config.js';
import type { SampleFn } from './server-requests.js';
import { fileTokenStores, tokensDirOf, type TokenStores } from './token-store.js';

export interface McpServerView extends McpServerState {
  tools: CatalogEntry[];
  /** `auth: oauth`: the server can be logged in to (console `l`, `mcp login`). */
  oauth: boolean;
  /** `untrusted`: its tools that are not read-only ask for approval. */
  trust: ResolvedMcpServer['trust'];
  /** Tools not registered because another source already has the name (as of the last discovery). */
  skipped: SkippedTool[];
}

/** A tool of this server left out: `owner` (another server's name, or `builtin`) registered `name` first. */
export interface SkippedTool {
  name: string;
  original: string;
  owner: string;
}

export interface McpManagerDeps {
  registry: ToolRegistry;
  logger: Logger;
  /** `<home>/logs`: stdio stderr goes to `logs/mcp/<server>.log`. */
  logsDir: string;
  /** `<home>/mcp-media`: images and audio from tool results. */
  mediaDir: string;
  /** `<home>/mcp-tokens`: OAuth token files; default next to `logsDir`. */
  tokensDir?: string;
  /** Where OAuth tokens live instead of `tokensDir`: the cluster's PostgreSQL (docs/cluster.md). */
  tokens?: TokenStores;
  approvals?: ApprovalRequester;
  sample?: SampleFn;
  now?: () => number;
  /** false: connect once, no reconnects (CLI `mcp list` / `mcp test`). */
  retry?: boolean;
  backoff?: ConnectionDeps['backoff'];
  onStatusChanged?(state: McpServerState): void;
  onToolsChanged?(change: { server: string; tools: string[] }): void;
}

export interface McpReloadResult {
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: string[];
  warnings: string[];
}

/** All configured MCP servers: connections, their tools in the registry, reload. */
export function createMcpManager(deps: McpManagerDeps) {
  const now = deps.now ?? Date.now;
  const connections = new Map<string, McpConnection>();
  const registered = new Map<string, CatalogEntry[]>();
  const skipped = new Map<string, SkippedTool[]>();
  /** Each server's last discovery, registered again when a name it skipped is freed. */
  const registerAgain = new Map<string, () => void>();
  let stopping = false;
  /** Server names in config.json's order (as of the last start or reload): of two servers that want one tool name, the first has it. */
  let configOrder: string[] = [];
  const before = (name: string, other: string): boolean => {
    const rank = (server: string) => { const at = configOrder.indexOf(server); return at < 0 ? Infinity : at; };
    return rank(name) < rank(other);
  };
  const tokens = deps.tokens ?? fileTokenStores(deps.tokensDir ?? tokensDirOf(path.dirname(deps.logsDir)));

  function register(server: ResolvedMcpServer, connection: McpConnection, discovery: Parameters<typeof buildCatalog>[0]): void {
    if (connections.get(server.name) !== connection) return;
    registerAgain.set(server.name, () => register(server, connection, discovery));
    const catalog = buildCatalog(discovery, { server, connection, mediaDir: deps.mediaDir });
    for (const warning of catalog.warnings) deps.logger.warn(warning);
    unregister(server.name);
    const kept: CatalogEntry[] = [];
    const left: SkippedTool[] = [];
    const losers = new Set<string>();
    for (const definition of catalog.definitions) {
      const entry = catalog.entries.find((e) => e.name === definition.name)!;
      const holder = deps.registry.get(definition.name);
      // Which of two servers keeps a name must not depend on which connected first.
      if (holder?.source && connections.has(holder.source) && before(server.name, holder.source) && giveUp(holder.source, definition.name, server.name)) losers.add(holder.source);
      else if (holder) {
        const owner = holder.source ?? 'another source';
        deps.logger.warn(`server ${server.name}: tool ${definition.name} is already registered by ${owner}; skipped`);
        left.push({ name: definition.name, original: entry.original, owner });
        continue;
      }
      deps.registry.register(definition);
      kept.push(entry);
    }
    registered.set(server.name, kept);
    skipped.set(server.name, left);
    deps.onToolsChanged?.({ server: server.name, tools: kept.map((e) => e.name) });
    for (const loser of losers) deps.onToolsChanged?.({ server: loser, tools: (registered.get(loser) ?? []).map((e) => e.name) });
  }

  /** A server later in config.json gives `name` up to `taker`, and lists it as skipped. False when it does not hold it. */
  function giveUp(holder: string, name: string, taker: string): boolean {
    const entries = registered.get(holder) ?? [];
    const entry = entries.find((e) => e.name === name);
    if (!entry) return false;
    deps.registry.unregister(name);
    registered.set(holder, entries.filter((e) => e !== entry));
    skipped.set(holder, [...(skipped.get(holder) ?? []), { name, original: entry.original, owner: taker }]);
    deps.logger.warn(`server ${holder}: tool ${name} is registered by ${taker}, which comes first in config.json; skipped`);
    return true;
  }

  function unregister(name: string): void {
    for (const entry of registered.get(name) ?? []) deps.registry.unregister(entry.name);
    registered.delete(name);
    skipped.delete(name);
  }

  function add(server: ResolvedMcpServer): McpConnection {
    const connection: McpConnection = createMcpConnection({
      server, logger: deps.logger, logsDir: deps.logsDir, tokens, approvals: deps.approvals, sample: deps.sample, now, retry: deps.retry, backoff: deps.backoff,
      onState: (state) => {
        if (['failed', 'degraded', 'reconnecting', 'needs-login'].includes(state.status)) deps.logger.warn(`MCP server ${state.name} ${state.status}: ${(state.reason ?? '').replace(`server ${state.name}: `, '')}`);
        deps.onStatusChanged?.(state);
      },
      onDiscovery: (discovery) => register(server, connection, discovery),
    });
    connections.set(server.name, connection);
    return connection;
  }

  async function remove(name: string): Promise<void> {
    const connection = connections.get(name);
    connections.delete(name);
    unregister(name);
    registerAgain.delete(name);
    // The names it held are free: a server that skipped one of them takes it now (and no longer lists it as skipped).
    if (!stopping) for (const [other, list] of [...skipped]) if (list.some((tool) => tool.owner === name)) registerAgain.get(other)?.();
    deps.onToolsChanged?.({ server: name, tools: [] });
    await connection?.stop();
  }

  let firstRound: Promise<void> = Promise.resolve();
  /** The problems of the entries as last resolved (start, reload): `mcp list` shows them. */
  let configWarnings: string[] = [];
  const resolve = (values: ConfigFile) => {
    const resolved = resolveMcpServers(values);
    configWarnings = resolved.warnings;
    configOrder = resolved.servers.map((server) => server.name);
    for (const warning of resolved.warnings) deps.logger.warn(warning);
    return resolved;
  };
  const manager = {
    /** Resolves the entries and connects every enabled one; `wait` awaits the first attempts. */
    async start(values: ConfigFile, options: { wait?: boolean } = {}): Promise<string[]> {
      const { servers, warnings } = resolve(values);
      const starts = servers.map((server) => add(server).start());
      firstRound = Promise.allSettled(starts).then(() => undefined);
      if (options.wait) await Promise.all(starts);
      return warnings;
    },
    /** Settles once every server's first connection attempt has (each bounded by its connect_timeout). */
    ready: (): Promise<void> => firstRound,
    /** Spec `/reload-mcp`: reconnect what changed, drop what was removed, keep the rest. */
    async reload(values: ConfigFile): Promise<McpReloadResult> {
      const { servers, warnings } = resolve(values);
      const next = new Map(servers.map((s) => [s.name, s]));
      const result: McpReloadResult = { added: [], removed: [], changed: [], unchanged: [], warnings };
      for (const name of [...connections.keys()]) {
        if (!next.has(name)) {
          result.removed.push(name);
          await remove(name);
        }
      }
      for (const server of servers) {
        const existing = connections.get(server.name);
        if (existing && existing.server.fingerprint === server.fingerprint) {
          result.unchanged.push(server.name);
          continue;
        }
        if (existing) {
          result.changed.push(server.name);
          await remove(server.name);
        } else result.added.push(server.name);
        void add(server).start();
      }
      deps.logger.info(`MCP reload: added ${list(result.added)}, changed ${list(result.changed)}, removed ${list(result.removed)}, kept ${list(result.unchanged)}`);
      return result;
    },
    /** Drops one server's connection and connects it again with the same entry (the console's `R`). */
    async reconnect(name: string): Promise<boolean> {
      const existing = connections.get(name);
      if (!existing) return false;
      await remove(name);
      void add(existing.server).start();
      return true;
    },
    /**
     * OAuth login for one `auth: oauth` server (spec 4.2 `mcp login`): `onUrl` gets the authorization URL
     * (print it, open a browser), `offer` takes a pasted redirect URL; on success the server reconnects.
     */
    login(name: string, options: Pick<LoginOptions, 'onUrl' | 'onNotice' | 'signal' | 'waitMs'>): LoginHandle {
      const existing = connections.get(name);
      if (!existing) throw new Error(`no MCP server "${name}" is configured`);
      if (existing.server.auth !== 'oauth') throw new Error(`server ${name}: OAuth login needs mcp_servers.${name}.auth set to "oauth" on an HTTP (url) server`);
      let started: LoginHandle | undefined;
      // Loaded on first use, like the MCP SDK it needs: a gateway that never logs in never loads either.
      const done = import('./oauth-login.js').then(({ startLogin }) => {
        started = startLogin({ ...options, server: existing.server, tokens, logger: deps.logger, now });
        return started.done;
      }).then(async (result) => {
        if (connections.get(name) === existing) await manager.reconnect(name);
        return result;
      });
      return {
        offer: (redirected) => (started ? started.offer(redirected) : { ok: false, reason: 'the login is not waiting for a redirect yet' }),
        done,
      };
    },
    list(): McpServerView[] {
      return [...connections.values()].map((c) => ({ ...c.state, tools: registered.get(c.server.name) ?? [], skipped: skipped.get(c.server.name) ?? [], oauth: c.server.auth === 'oauth', trust: c.server.trust }));
    },
    /** What is wrong in config.json's `mcp_servers` (entries skipped, values replaced), as of the last start or reload. */
    configWarnings: (): string[] => [...configWarnings],
    connection: (name: string) => connections.get(name),
    async stop(): Promise<void> {
      stopping = true; // every server goes: none takes over the names of another
      await Promise.all([...connections.keys()].map((name) => remove(name)));
    },
  };
  return manager;
}

export type McpManager = ReturnType<typeof createMcpManager>;

export function mcpPaths(homeRoot: string) {
  return { logsDir: path.join(homeRoot, 'logs'), mediaDir: path.join(homeRoot, 'mcp-media'), tokensDir: tokensDirOf(homeRoot) };
}

function list(names: string[]): string {
  return names.length > 0 ? names.join(', ') : '(none)';
}
