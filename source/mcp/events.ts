import type { McpServerState } from './connection.js';

/** The MCP servers' events (joined into GatewayEventMap). */
export interface McpEventMap {
  'mcp.statusChanged': [McpServerState];
  'mcp.toolsChanged': [{ server: string; tools: string[] }];
}
