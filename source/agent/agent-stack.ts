import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/load.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { Store } from '../store/database.js';
import { createApprovalQueue, type ApprovalPolicy, type ApprovalQueue } from './approval-queue.js';
import { resolveAgent, type ResolvedAgent } from './model-config.js';
import { createAgentRunner } from './runner.js';
import { createTerminalTool } from './terminal-tool.js';
import { createToolRegistry } from './tool-registry.js';
import type { RunAgent, ToolRegistry } from './types.js';

export interface AgentStack {
  agent: ResolvedAgent;
  tools: ToolRegistry & { onChange(listener: () => void): () => void };
  approvals: ApprovalQueue;
  runAgent: RunAgent;
}

/**
 * The agent runtime as one unit: checked model settings (throws ConfigError at startup), the tool
 * registry with the built-in terminal tool, the approval queue and the runner.
 */
export function createAgentStack(deps: { config: ResolvedConfig; store: Store; logger: Logger; policy: ApprovalPolicy | (() => ApprovalPolicy); events?: Pick<GatewayEvents, 'emit'>; now?: () => number }): AgentStack {
  const agent = resolveAgent(deps.config);
  const tools = createToolRegistry();
  tools.register(createTerminalTool({ workdir: agent.workdir, timeoutMs: agent.terminal.timeoutMs, approval: agent.terminal.approval, childrenDir: deps.config.home.childrenDir }));
  const approvals = createApprovalQueue({ store: deps.store, logger: deps.logger, policy: deps.policy, timeoutMs: agent.approvals.timeoutMs, events: deps.events, now: deps.now });
  const runAgent = createAgentRunner({ agent, skillsDir: deps.config.home.skillsDir, store: deps.store, logger: deps.logger, tools, approvals, events: deps.events, now: deps.now });
  return { agent, tools, approvals, runAgent };
}
