import { setTimeout as sleep } from 'node:timers/promises';
import type { LanguageModel } from 'ai';
import type { ToolDefinition } from './types.js';

/** The provider's model (AI SDK language model specification v3: every provider package we use). */
export type ProviderModel = Extract<LanguageModel, { specificationVersion: 'v3' }>;
type CallOptions = Parameters<ProviderModel['doGenerate']>[0];
export type ModelPrompt = CallOptions['prompt'];
type PromptMessage = ModelPrompt[number];
type AssistantPart = Extract<PromptMessage, { role: 'assistant' }>['content'][number];
type ToolResultPart = Extract<PromptMessage, { role: 'tool' }>['content'][number];
type ModelTool = NonNullable<CallOptions['tools']>[number];
type Ai = typeof import('ai');

export interface StepToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ModelStepResult {
  text: string;
  /** Calls to run. */
  calls: StepToolCall[];
  /** Calls to an unknown tool or with arguments that are not JSON: already answered with their error in `messages`. */
  rejected: Array<StepToolCall & { error: string }>;
  /** What to append to the prompt: the model's turn, then the answers to the rejected calls. */
  messages: PromptMessage[];
  usage: { inputTokens: number; outputTokens: number };
}

/** The tools as the provider takes them (JSON schemas; the loop runs the tools itself). */
export function providerTools(tools: readonly ToolDefinition[]): ModelTool[] {
  return tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Extract<ModelTool, { type: 'function' }>['inputSchema'] }));
}

/**
 * One model step: the provider's own call (`doGenerate`), as `generateText` made it, without
 * `generateText` around it. That wrapper validated the whole prompt with zod, opened telemetry
 * spans and built result objects on every call: about 650 µs of CPU, more than the HTTP request to
 * a model on loopback. What a real provider needs stays: the provider's request building, response
 * validation and errors, connection reuse (its fetch), the abort signal, and the SDK's retries of
 * retryable errors (429, 5xx) with exponential backoff honouring Retry-After. Unknown tools and
 * arguments that are not JSON become tool errors the model sees, in the SDK's words.
 */
export async function modelStep(ai: Ai, model: ProviderModel, input: { prompt: ModelPrompt; tools: ModelTool[]; signal: AbortSignal; maxRetries: number }): Promise<ModelStepResult> {
  const withTools = input.tools.length > 0;
  const result = await withRetries(ai, () => model.doGenerate({
    prompt: input.prompt, abortSignal: input.signal,
    ...(withTools ? { tools: input.tools, toolChoice: { type: 'auto' as const } } : {}),
  }), input.maxRetries, input.signal);

  const known = new Set(input.tools.map((tool) => tool.name));
  const step: ModelStepResult = { text: '', calls: [], rejected: [], messages: [], usage: { inputTokens: result.usage.inputTokens.total ?? 0, outputTokens: result.usage.outputTokens.total ?? 0 } };
  const said: AssistantPart[] = [];
  const answers: ToolResultPart[] = [];
  for (const part of result.content) {
    if (part.type === 'text') {
      step.text += part.text;
      if (part.text.length > 0) said.push({ type: 'text', text: part.text, ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}) });
    } else if (part.type === 'reasoning') {
      said.push({ type: 'reasoning', text: part.text, ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}) });
    } else if (part.type === 'tool-call') {
      const parsed = parseInput(ai, part.toolName, part.input, known);
      said.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: parsed.ok ? parsed.value : parsed.sent, ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}) });
      if (parsed.ok) {
        step.calls.push({ id: part.toolCallId, name: part.toolName, input: parsed.value });
      } else {
        step.rejected.push({ id: part.toolCallId, name: part.toolName, input: parsed.input, error: parsed.error });
        answers.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'error-text', value: parsed.error } });
      }
    }
  }
  if (said.length > 0) step.messages.push({ role: 'assistant', content: said });
  if (answers.length > 0) step.messages.push({ role: 'tool', content: answers });
  return step;
}

/** A tool call's arguments: JSON text (empty means `{}`) for a tool the step offered. */
/** A rejected call keeps what the model sent (`input`: parsed when it was JSON) and answers in the prompt with an object (`sent`), as the SDK did. */
function parseInput(ai: Ai, toolName: string, text: string, known: ReadonlySet<string>): { ok: true; value: unknown } | { ok: false; input: unknown; sent: unknown; error: string } {
  let value: unknown;
  let parseError: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    parseError = error;
  }
  const input = parseError === undefined ? value : text;
  const sent = typeof input === 'object' && input !== null ? input : {};
  if (!known.has(toolName)) return { ok: false, input, sent, error: new ai.NoSuchToolError({ toolName, availableTools: [...known] }).message };
  if (parseError !== undefined) return { ok: false, input, sent, error: new ai.InvalidToolInputError({ toolName, toolInput: text, cause: parseError }).message };
  return { ok: true, value };
}

/** The SDK's retry rule (retryWithExponentialBackoffRespectingRetryHeaders): 2 s, then doubling; Retry-After wins when sooner than a minute. */
async function withRetries<T>(ai: Ai, call: () => PromiseLike<T>, maxRetries: number, signal: AbortSignal): Promise<T> {
  const errors: unknown[] = [];
  let delayMs = 2_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (isAbort(error) || maxRetries === 0) throw error;
      errors.push(error);
      const message = messageOf(error);
      if (errors.length > maxRetries) throw new ai.RetryError({ message: `Failed after ${errors.length} attempts. Last error: ${message}`, reason: 'maxRetriesExceeded', errors });
      if (!(ai.APICallError.isInstance(error) && error.isRetryable)) {
        if (errors.length === 1) throw error;
        throw new ai.RetryError({ message: `Failed after ${errors.length} attempts with non-retryable error: '${message}'`, reason: 'errorNotRetryable', errors });
      }
      await sleep(retryDelayMs(error.responseHeaders, delayMs), undefined, { signal });
      delayMs *= 2;
    }
  }
}

function retryDelayMs(headers: Record<string, string> | undefined, backoffMs: number): number {
  if (!headers) return backoffMs;
  let ms: number | undefined;
  const afterMs = parseFloat(headers['retry-after-ms'] ?? '');
  if (!Number.isNaN(afterMs)) ms = afterMs;
  const after = headers['retry-after'];
  if (after && ms === undefined) {
    const seconds = parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoffMs) ? ms : backoffMs;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted' || error.name === 'TimeoutError');
}

function messageOf(error: unknown): string {
  if (error == null) return 'unknown error';
  if (typeof error === 'string') return error;
  return error instanceof Error ? error.message : JSON.stringify(error);
}
