import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { ApprovalTimeout, type ApprovalOutcome, type ApprovalRequester } from '../agent/types.js';
import type { ResolvedMcpServer } from './server-config.js';

/** One sampling request as our model layer sees it (server-initiated `sampling/createMessage`). */
export interface SampleRequest {
  server: string;
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
  /** `sampling.model` when configured, else the configured model. */
  model?: string;
  signal: AbortSignal;
}

export type SampleResult = { ok: true; value: { model: string; text: string; stopReason?: string } } | { ok: false; reason: string };

/** Runs a sampling request through the configured model (the agent runtime provides it). */
export type SampleFn = (request: SampleRequest) => Promise<SampleResult>;

export interface ServerRequestDeps {
  server: ResolvedMcpServer;
  approvals?: ApprovalRequester;
  sample?: SampleFn;
  now: () => number;
}

/** What we advertise: form elicitation when enabled (never URL mode); sampling only when enabled and wired. */
export function clientCapabilities(deps: ServerRequestDeps): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (deps.server.elicitation.enabled) capabilities.elicitation = { form: {} };
  if (deps.server.sampling.enabled && deps.sample) capabilities.sampling = {};
  return capabilities;
}

/** Installs the elicitation and sampling handlers (the same handlers answer modern input-required results). */
export function installServerRequestHandlers(client: Client, deps: ServerRequestDeps): void {
  const { server } = deps;
  if (server.elicitation.enabled) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Record<string, unknown>;
      if (params.mode === 'url' || !deps.approvals) return { action: 'decline' as const };
      const message = String(params.message ?? '');
      const schema = (params.requestedSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>;
      const outcome = await askWithTimeout(deps.approvals, {
        origin: `mcp:${server.name}`, tool: 'elicitation', server: server.name, args: { message },
        reason: `server ${server.name} asks for input`, form: { message, schema },
      }, server.elicitation.timeoutMs, `mcp_servers.${server.name}.elicitation.timeout`);
      if (outcome.status === 'approved') return { action: 'accept' as const, content: withDefaults(outcome.values ?? {}, schema) };
      return { action: outcome.status === 'denied' ? ('decline' as const) : ('cancel' as const) };
    });
  }
  if (server.sampling.enabled && deps.sample) {
    const sample = deps.sample;
    const recent: number[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const params = request.params as unknown as { messages: Array<{ role: 'user' | 'assistant'; content: unknown }>; systemPrompt?: string; maxTokens: number };
      const limit = server.sampling.maxRequestsPerMinute;
      const now = deps.now();
      while (recent.length > 0 && recent[0]! <= now - 60_000) recent.shift();
      if (limit !== undefined && recent.length >= limit) throw new Error(`server ${server.name}: sampling limit of ${limit} requests per minute reached (mcp_servers.${server.name}.sampling.max_requests_per_minute)`);
      recent.push(now);
      const messages = params.messages.map((m) => ({ role: m.role, text: contentText(m.content) }));
      if (!deps.approvals) throw new Error(`server ${server.name}: sampling needs operator approval and no approval queue is available`);
      const outcome = await askWithTimeout(deps.approvals, {
        origin: `mcp:${server.name}`, tool: 'sampling', server: server.name,
        args: { systemPrompt: params.systemPrompt, messages }, reason: `server ${server.name} asks the model for a completion`,
      }, server.elicitation.timeoutMs, `mcp_servers.${server.name}.elicitation.timeout (sampling has no timeout of its own)`);
      if (outcome.status !== 'approved') throw new Error(`server ${server.name}: sampling request not approved by the operator (${outcome.status})`);
      const maxTokens = Math.min(params.maxTokens, server.sampling.maxTokens ?? params.maxTokens);
      const result = await sample({ server: server.name, messages, systemPrompt: params.systemPrompt, maxTokens, model: server.sampling.model, signal: AbortSignal.timeout(server.timeoutMs) });
      if (!result.ok) throw new Error(`server ${server.name}: sampling failed: ${result.reason}`);
      return { model: result.value.model, role: 'assistant' as const, content: { type: 'text' as const, text: result.value.text }, stopReason: result.value.stopReason ?? 'endTurn' };
    });
  }
}

/** The approval, bounded by the server's own timeout: no answer in time is recorded as expired (timed out), not cancelled. */
async function askWithTimeout(approvals: ApprovalRequester, input: Parameters<ApprovalRequester['request']>[0], timeoutMs: number, setting: string): Promise<ApprovalOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ApprovalOutcome>((resolve) => {
    timer = setTimeout(() => {
      const timeout = new ApprovalTimeout(`timed out: no answer within ${timeoutMs / 1000} s (${setting})`);
      controller.abort(timeout);
      resolve({ status: 'expired', reason: timeout.message });
    }, timeoutMs);
  });
  try {
    return await Promise.race([approvals.request(input, controller.signal).catch((): ApprovalOutcome => ({ status: 'cancelled', reason: 'approval failed' })), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** SEP-1034: fields the operator left out take the defaults the server declared. */
export function withDefaults(values: Record<string, unknown>, schema: Record<string, unknown>): Record<string, string | number | boolean | string[]> {
  const out: Record<string, unknown> = { ...values };
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [key, property] of Object.entries(properties)) {
    if (out[key] === undefined && property && property.default !== undefined) out[key] = property.default;
  }
  return out as Record<string, string | number | boolean | string[]>;
}

function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => ((b as { type?: string }).type === 'text' ? String((b as { text?: string }).text ?? '') : `[${String((b as { type?: string }).type)}]`)).join('\n');
}
