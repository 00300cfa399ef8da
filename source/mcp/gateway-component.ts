import type { Logger } from 'pino';
import type { ResolvedModel } from '../agent/model-config.js';
import type { ApprovalRequester, ToolRegistry } from '../agent/types.js';
import { loadOrCreateConfig, resolveConfig, type ResolvedConfig } from '../config/load.js';
import type { Component } from '../gateway/lifecycle.js';
import type { GatewayEvents } from '../gateway/events.js';
import { createMcpManager, mcpPaths, type McpReloadResult, type McpServerView } from './manager.js';
import type { LoginHandle, LoginOptions } from './oauth-login.js';
import type { TokenStores } from './token-store.js';
import { createSampler } from './sampler.js';

export interface McpCommands {
  /**
   * Spec `/reload-mcp`: re-reads config.json; reconnects changed entries, drops removed ones, keeps the rest.
   * The gateway's config watch calls it within about a second when `mcp_servers` changes on disk.
   */
  reload(): Promise<McpReloadResult>;
  /** Closes and reconnects one server with its current entry; false when no such server. */
  reconnect(name: string): Promise<boolean>;
  list(): McpServerView[];
  /** The problems of `mcp_servers` in the config the servers were last started or reloaded with. */
  configWarnings(): string[];
  /**
   * OAuth login (`auth: oauth` servers, status `needs-login`): `onUrl` receives the authorization URL to show
   * and open; `offer()` takes a pasted redirect URL; `done` resolves with the token expiry and the server
   * reconnects. Throws for unknown or non-OAuth servers.
   */
  login(name: string, options: Pick<LoginOptions, 'onUrl' | 'onNotice' | 'signal'>): LoginHandle;
  /** The last stderr lines of a stdio server (empty for http servers and unknown names). */
  stderrTail(name: string, lines?: number): string[];
}

export interface McpSnapshot {
  servers: Array<Omit<McpServerView, 'tools'> & { toolCount: number }>;
}

/** The MCP servers as a gateway component: connects in the background so intake is not held up. */
export function createMcpComponent(deps: {
  config: ResolvedConfig;
  logger: Logger;
  events: Pick<GatewayEvents, 'emit'>;
  tools: ToolRegistry;
  approvals: ApprovalRequester;
  model: ResolvedModel;
  /** Cluster mode: OAuth tokens in the shared PostgreSQL instead of `<home>/mcp-tokens`. */
  tokens?: TokenStores;
  now?: () => number;
}): { component: Component; commands: McpCommands; snapshot(): McpSnapshot; ready(): Promise<void> } {
  const manager = createMcpManager({
    registry: deps.tools,
    logger: deps.logger,
    ...mcpPaths(deps.config.home.root),
    ...(deps.tokens ? { tokens: deps.tokens } : {}),
    approvals: deps.approvals,
    sample: createSampler(deps.model),
    now: deps.now,
    onStatusChanged: (state) => deps.events.emit('mcp.statusChanged', state),
    onToolsChanged: (change) => deps.events.emit('mcp.toolsChanged', change),
  });
  let queue: Promise<unknown> = Promise.resolve();
  /** One reload at a time: the gateway's config watch and an explicit reload never interleave. */
  const reload = (): Promise<McpReloadResult> => {
    const next = queue.then(() => manager.reload(resolveConfig(loadOrCreateConfig(deps.config.home).file, deps.config.home).values));
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    component: {
      name: 'mcp servers',
      start: async () => {
        await manager.start(deps.config.values);
      },
      stop: async () => {
        await queue;
        await manager.stop();
      },
    },
    commands: {
      reload,
      reconnect: (name) => manager.reconnect(name),
      list: () => manager.list(),
      configWarnings: () => manager.configWarnings(),
      login: (name, options) => manager.login(name, options),
      stderrTail: (name, lines = 20) => manager.connection(name)?.stderrLines().filter((line) => line.trim() !== '').slice(-lines) ?? [],
    },
    ready: () => manager.ready(),
    snapshot: () => ({ servers: manager.list().map(({ tools, ...rest }) => ({ ...rest, toolCount: tools.length })) }),
  };
}
