import type { Logger } from 'pino';
import type { ResolvedModel } from '../agent/model-config.js';
import type { ApprovalRequester, ToolRegistry } from '../agent/types.js';
import { loadOrCreateConfig, resolveConfig, type ResolvedConfig } from '../config/load.js';
import type { Component } from '../gateway/lifecycle.js';
import type { GatewayEvents } from '../gateway/events.js';
import { createMcpManager, mcpPaths, type McpReloadResult, type McpServerView } from './manager.js';
import { createSampler } from './sampler.js';

export interface McpCommands {
  /** Spec `/reload-mcp`: re-reads config.json; reconnects changed entries, drops removed ones, keeps the rest. */
  reload(): Promise<McpReloadResult>;
  list(): McpServerView[];
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
  now?: () => number;
}): { component: Component; commands: McpCommands; snapshot(): McpSnapshot } {
  const manager = createMcpManager({
    registry: deps.tools,
    logger: deps.logger,
    ...mcpPaths(deps.config.home.root),
    approvals: deps.approvals,
    sample: createSampler(deps.model),
    now: deps.now,
    onStatusChanged: (state) => deps.events.emit('mcp.statusChanged', state),
    onToolsChanged: (change) => deps.events.emit('mcp.toolsChanged', change),
  });
  return {
    component: {
      name: 'mcp servers',
      start: async () => {
        await manager.start(deps.config.values);
      },
      stop: () => manager.stop(),
    },
    commands: {
      reload: () => {
        const file = loadOrCreateConfig(deps.config.home).file;
        return manager.reload(resolveConfig(file, deps.config.home).values);
      },
      list: () => manager.list(),
    },
    snapshot: () => ({ servers: manager.list().map(({ tools, ...rest }) => ({ ...rest, toolCount: tools.length })) }),
  };
}
