import { commandFor } from '../config/home.js';
import type { McpServerConfig } from '../config/types.js';
import type { McpReloadResult, McpServerView } from '../mcp/manager.js';
import { readConfigFile } from '../infra/config-file.js';
import type { ConfigFile } from '../config/types.js';
import type { OperationsCore } from './core.js';
import { refusedChange, type ConfigChangeView } from './config.js';
import { OperatorError } from './errors.js';
import { optionalCount, text, type Implementation, type Params } from './params.js';

/** The servers and what is wrong in their config.json entries (the same warnings the gateway logs). */
export interface McpServerList {
  servers: McpServerView[];
  warnings: string[];
}

export interface McpOperations {
  /**
   * The gateway's servers with status and tools, and the warnings of the entries it resolved; without
   * a gateway, each enabled server is connected once to find out, and the entries on disk resolved.
   */
  servers(params: Record<string, never>): Promise<McpServerList>;
  /** Spec /reload-mcp: reconnect changed entries, drop removed ones, keep the rest. */
  reload(params: Record<string, never>): Promise<McpReloadResult>;
  /** Closes and reconnects one server (and resets its failure count). */
  reconnect(params: { server: string }): Promise<{ server: string }>;
  /** The last stderr lines of a stdio server. */
  stderr(params: { server: string; lines?: number }): Promise<{ server: string; lines: string[] }>;
  /** Adds a server entry (never over an existing name); checked as the gateway would at start, connected at once by a running gateway. */
  add(params: { name: string; entry: McpServerConfig; by?: string }): Promise<ConfigChangeView>;
  remove(params: { name: string; by?: string }): Promise<ConfigChangeView>;
}

export function createMcpOperations(core: OperationsCore): McpOperations {
  const configured = (): Record<string, McpServerConfig> => ((readConfigFile(core.home.configFile) ?? {}) as ConfigFile).mcp_servers ?? {};
  const running = (what: string) => {
    if (core.where !== 'gateway') throw new OperatorError('unavailable', `No gateway is running on ${core.home.root}: nothing to ${what}`, `Start it with: ${commandFor(core.home, 'gateway')}`);
  };
  const change = async (name: string, entry: McpServerConfig | undefined, by: string): Promise<ConfigChangeView> => {
    const result = await core.config().set(['mcp_servers', name], entry, by);
    if (!result.ok) throw refusedChange(result);
    return { key: `mcp_servers.${name}`, ...result.value, live: core.where === 'gateway' };
  };

  return {
    async servers() {
      if (core.where === 'gateway') {
        const { mcp } = await core.gateway();
        return { servers: mcp.list(), warnings: mcp.configWarnings() };
      }
      const { probeServers } = await import('./mcp-probe.js');
      return probeServers(core.home);
    },
    async reload() {
      running('reload');
      return (await core.gateway()).mcp.reload();
    },
    async reconnect(params: Params) {
      const server = text(params, 'server', 'mcp.reconnect');
      running(`reconnect (${server})`);
      const gateway = await core.gateway();
      // A disabled server has nothing to connect: reconnecting it would silently do nothing.
      if (gateway.mcp.list().find((view) => view.name === server)?.status === 'disabled') {
        throw new OperatorError('invalid', `MCP server "${server}" is disabled (enabled: false): there is nothing to reconnect`, `Enable it with: switchboard config set mcp_servers.${server}.enabled true`);
      }
      if (!(await gateway.mcp.reconnect(server))) throw new OperatorError('not_found', `No MCP server "${server}" in the running gateway`, 'See them: switchboard mcp list');
      return { server };
    },
    async stderr(params: Params) {
      const server = text(params, 'server', 'mcp.stderr');
      running(`read (stderr of ${server})`);
      return { server, lines: (await core.gateway()).mcp.stderrTail(server, optionalCount(params, 'lines', 'mcp.stderr', 20, 1000)) };
    },
    async add(params: Params) {
      const name = text(params, 'name', 'mcp.add');
      const entry = params.entry;
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new OperatorError('invalid', 'mcp.add: "entry" must be an object (command/args/env or url/headers)');
      if (Object.hasOwn(configured(), name)) {
        throw new OperatorError('conflict', `MCP server "${name}" already exists in ${core.home.configFile}; it is never overwritten`, `Remove it first (switchboard mcp remove ${name}) or pick another name.`);
      }
      return change(name, entry as McpServerConfig, typeof params.by === 'string' ? params.by : 'operator');
    },
    async remove(params: Params) {
      const name = text(params, 'name', 'mcp.remove');
      if (!Object.hasOwn(configured(), name)) throw new OperatorError('not_found', `No server "${name}" in mcp_servers of ${core.home.configFile}`, 'See the configured names: switchboard mcp list');
      return change(name, undefined, typeof params.by === 'string' ? params.by : 'operator');
    },
  } satisfies Implementation<McpOperations> as unknown as McpOperations;
}
