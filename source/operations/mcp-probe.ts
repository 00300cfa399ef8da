import { pino } from 'pino';
import { createToolRegistry } from '../agent/tool-registry.js';
import type { HomeLayout } from '../config/home.js';
import { loadOrCreateConfig, resolveConfig } from '../config/load.js';
import { createMcpManager, mcpPaths, type McpServerView } from '../mcp/manager.js';
import type { McpServerList } from './mcp.js';
import type { TokenStores } from '../mcp/token-store.js';
import { openTokenStores } from './mcp-oauth.js';

/**
 * Connects MCP servers once from this process, reports, and closes them: `mcp list` while no
 * gateway runs, and `mcp test` (a probe of one server, even a disabled one). Warnings about the
 * configuration reach `onWarning`; per-server failures are in the views.
 */
function probeManager(home: HomeLayout, tokens: TokenStores, onWarning: (message: string) => void) {
  const logger = pino({ level: 'warn' }, {
    write(line: string) {
      const { msg } = JSON.parse(line) as { msg: string };
      if (!msg.startsWith('MCP server ')) onWarning(msg);
    },
  });
  return createMcpManager({ registry: createToolRegistry(), logger, ...mcpPaths(home.root), tokens, retry: false });
}

/** Every enabled server connected once, and the config warnings a gateway would log for these entries. */
export async function probeServers(home: HomeLayout): Promise<McpServerList> {
  const config = resolveConfig(loadOrCreateConfig(home).file, home);
  const stores = await openTokenStores(home, config.values);
  const manager = probeManager(home, stores.tokens, () => {});
  try {
    const warnings = await manager.start(config.values, { wait: true });
    return { servers: manager.list(), warnings };
  } finally {
    await manager.stop();
    await stores.close();
  }
}

/** One server, enabled for the probe; undefined when no entry has that name. */
export async function probeServer(home: HomeLayout, name: string, onWarning: (message: string) => void = () => {}): Promise<{ view: McpServerView; stderr: string[] } | undefined> {
  const config = resolveConfig(loadOrCreateConfig(home).file, home);
  const servers = config.values.mcp_servers ?? {};
  if (!Object.hasOwn(servers, name)) return undefined;
  const stores = await openTokenStores(home, config.values);
  const manager = probeManager(home, stores.tokens, onWarning);
  try {
    await manager.start({ mcp_servers: { [name]: { ...servers[name]!, enabled: true } } }, { wait: true });
    return { view: manager.list()[0]!, stderr: manager.connection(name)?.stderrLines() ?? [] };
  } finally {
    await manager.stop();
    await stores.close();
  }
}
