/**
 * The agent runtime's contracts. Webhooks, jobs, MCP and the console depend on these types only;
 * the implementations live beside this file.
 */

/** `webhook:<route>:<delivery>`, `job:<id>`, `console`, `cli`. */
export type RunOrigin = string;

export type RunStatus = 'ok' | 'failed' | 'timeout' | 'cancelled';

export interface RunRequest {
  prompt: string;
  /** Extra system text added after the base system prompt and skills (e.g. the untrusted-payload notice). */
  system?: string;
  /** Skill names in order of preference. */
  skills?: string[];
  /** Load only the first skill found (webhook routes, spec 2.7). */
  firstSkillOnly?: boolean;
  origin: RunOrigin;
  /** Chosen by the caller when it must recognise the run's events before the result (operations' runs.run). */
  runId?: string;
  signal?: AbortSignal;
  /** Progress as it happens: the CLI prints tool calls, the console shows them. */
  onEvent?: (event: RunEvent) => void;
  /** The caller logs an ok run's outcome in its own line (the webhook queue: one line per delivery); other outcomes are logged here. */
  callerLogsOk?: boolean;
}

export type RunEvent =
  | { kind: 'step.started'; step: number }
  /** `source`: who provides the tool (`builtin` or the MCP server's name), absent for a tool not registered. */
  | { kind: 'tool.called'; call: { id: string; name: string; args: unknown; source?: string } }
  | { kind: 'tool.finished'; call: ToolCallRecord };

export interface ToolCallRecord {
  id: string;
  name: string;
  args: unknown;
  /** Text the model saw (truncated to 16 KiB in the store). */
  result: string;
  isError: boolean;
  startedAtMs: number;
  finishedAtMs: number;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  output: string;
  steps: number;
  toolCalls: ToolCallRecord[];
  usage: { inputTokens: number; outputTokens: number };
  error?: string;
  /** Skills the run went on without (missing or unusable), each with its reason; absent when none. */
  skillWarnings?: string[];
  startedAtMs: number;
  finishedAtMs: number;
}

/** One agent run; never throws for model or tool failures (they become a failed result). */
export type RunAgent = (request: RunRequest) => Promise<RunResult>;

/** MCP-style hints (server-supplied for MCP tools, so only trusted as far as the server is). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolContext {
  runId: string;
  origin: RunOrigin;
  signal: AbortSignal;
  /** Asks the operator; resolves with the decision. A failure here never grants permission. */
  requestApproval(input: Omit<ApprovalInput, 'origin'>): Promise<ApprovalOutcome>;
}

export interface ToolOutput {
  text: string;
  isError?: boolean;
  structured?: unknown;
}

export interface ToolDefinition {
  /** Unique registered name, `[A-Za-z0-9_]` (MCP tools: `mcp__<server>__<tool>`). */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /** Calls may run concurrently with other parallel-safe calls of the same step. */
  parallelSafe?: boolean;
  /** Who provides it, for display: `builtin`, or the MCP server name. */
  source?: string;
  /** A thrown error becomes a tool error the model sees, not a failed run. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput | string>;
}

export interface ToolRegistry {
  register(tool: ToolDefinition): void;
  unregister(name: string): void;
  get(name: string): ToolDefinition | undefined;
  list(): ToolDefinition[];
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

export interface ApprovalInput {
  origin: RunOrigin;
  /** Registered tool name, or `elicitation` / `sampling` for server requests. */
  tool: string;
  /** MCP server name when the request comes from one. */
  server?: string;
  /** Raw arguments; the queue stores a sanitized, truncated preview only. */
  args: unknown;
  annotations?: ToolAnnotations;
  /** Why approval is needed, shown to the operator (e.g. "matches: recursive delete"). */
  reason?: string;
  /** MCP elicitation: a form the operator fills (JSON Schema of the requested fields). */
  form?: { message: string; schema: Record<string, unknown> };
}

export type ApprovalOutcome =
  | { status: 'approved'; values?: Record<string, unknown> }
  | { status: 'denied' | 'expired' | 'cancelled'; reason?: string; /** Who decided: `policy` (approvals.headless), `timeout`, an operator (`console`, `cli`, …). */ by?: string };

/**
 * What the model sees when a call was not approved: an operator's denial with their reason, or why
 * nobody approved it (the policy, the timeout, a cancelled run, a failure). `what` words it for a
 * shell command or an MCP tool call.
 */
export function notApprovedText(outcome: Exclude<ApprovalOutcome, { status: 'approved' }>, what: 'command' | 'tool call'): string {
  const notRun = what === 'command' ? 'the command was not run' : 'the tool call was not made';
  const byOperator = outcome.status === 'denied' && outcome.by !== undefined && !['policy', 'timeout', 'run', 'shutdown'].includes(outcome.by);
  const why = byOperator
    ? `denied by the operator${outcome.reason && outcome.reason !== 'denied by the operator' ? `: ${outcome.reason}` : ''}`
    : `not approved (${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''})`;
  return `${why}; ${notRun}; do not retry without being asked`;
}

/** The approval queue as its users see it (tools, MCP trust, elicitation). */
export interface ApprovalRequester {
  /**
   * Resolves when decided, expired or cancelled (also when `signal` aborts). Never rejects. An abort
   * whose reason is an `ApprovalTimeout` (the asker's own deadline) ends as `expired` with its message.
   */
  request(input: ApprovalInput, signal?: AbortSignal): Promise<ApprovalOutcome>;
}

/** The asker's deadline passed (e.g. `elicitation.timeout`): an expiry, not a cancelled run. */
export class ApprovalTimeout extends Error {
  override name = 'TimeoutError';
}
