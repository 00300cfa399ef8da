import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/load.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { ApprovalBackend, RunBackend } from '../store/async-domains.js';
import { createApprovalQueue, type ApprovalPolicy, type ApprovalQueue } from './approval-queue.js';
import { resolveAgent, type ResolvedAgent } from './model-config.js';
import { createRunRecorder, type RunRecorder } from './run-records.js';
import { createModelLoader } from './providers.js';
import { createAgentRunner } from './runner.js';
import { createTerminalTool } from './terminal-tool.js';
import { createToolRegistry } from './tool-registry.js';
import type { RunAgent, ToolRegistry } from './types.js';

export interface AgentStack {
  agent: ResolvedAgent;
  tools: ToolRegistry & { onChange(listener: () => void): () => void };
  approvals: ApprovalQueue;
  runAgent: RunAgent;
  /** The runs' records: read one after its writes, or wait for every write (shutdown). */
  runs: Pick<RunRecorder, 'get' | 'settled'>;
  /** Loads the model's provider now (ModelLoader.preload): the gateway's start calls it. */
  preloadModel(): Promise<void>;
}

/**
 * Cluster mode: a decision taken on another node wakes the waiting run through its notification
 * (`ApprovalQueue.heard`); this read of the decision is only the safety net for a notification lost
 * while the channel between the nodes reconnects.
 */
const CLUSTER_DECISION_POLL_MS = 5_000;

export interface AgentStackDeps {
  config: ResolvedConfig;
  runs: RunBackend;
  approvals: ApprovalBackend;
  logger: Logger;
  policy: ApprovalPolicy | (() => ApprovalPolicy);
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
  /** Cluster mode: how often the approval requests of other nodes are read (ApprovalQueueDeps.othersEveryMs). */
  othersEveryMs?: number;
  /** Cluster mode: tells the other nodes of requests recorded and decided here (ApprovalQueueDeps.announce). */
  announce?: (id: string) => void;
}

/**
 * The agent runtime as one unit: checked model settings (throws ConfigError at startup), the tool
 * registry with the built-in terminal tool, the approval queue and the runner.
 */
export function createAgentStack(deps: AgentStackDeps): AgentStack {
  const agent = resolveAgent(deps.config);
  const tools = createToolRegistry();
  tools.register(createTerminalTool({ workdir: agent.workdir, timeoutMs: agent.terminal.timeoutMs, approval: agent.terminal.approval, childrenDir: deps.config.home.childrenDir }));
  const approvals = createApprovalQueue({ approvals: deps.approvals, logger: deps.logger, policy: deps.policy, timeoutMs: agent.approvals.timeoutMs, events: deps.events, now: deps.now, ...(deps.othersEveryMs ? { othersEveryMs: deps.othersEveryMs, pollIntervalMs: CLUSTER_DECISION_POLL_MS } : {}), ...(deps.announce ? { announce: deps.announce } : {}) });
  const runs = createRunRecorder(deps.runs, deps.logger);
  const model = createModelLoader(agent.model);
  const runAgent = createAgentRunner({ agent, model, skillsDir: deps.config.home.skillsDir, runs, logger: deps.logger, tools, approvals, events: deps.events, now: deps.now });
  return { agent, tools, approvals, runAgent, runs, preloadModel: model.preload };
}
