import { PER_DELIVERY } from '../infra/log-ring.js';
import { randomUUID } from 'node:crypto';
import { followAbort } from '../infra/follow-abort.js';
import type { LanguageModel } from 'ai';
import type { Logger } from 'pino';
import type { GatewayEvents } from '../gateway/events.js';
import type { ResolvedAgent } from './model-config.js';
import { describeModelError } from './model-errors.js';
import { modelStep, providerTools, type ModelPrompt, type ProviderModel } from './model-step.js';
import { loadAiSdk, type ModelLoader } from './providers.js';
import type { RunRecorder } from './run-records.js';
import { loadSkills } from './skills.js';
import { buildSystemPrompt, dryRunAnswer } from './system-prompt.js';
import { executeToolCalls, type PendingCall } from './tool-execution.js';
import type { ApprovalRequester, RunAgent, RunRequest, RunResult, RunStatus, ToolCallRecord, ToolContext, ToolDefinition, ToolRegistry } from './types.js';

export interface AgentRunnerDeps {
  agent: ResolvedAgent;
  /** The agent's model, made on the gateway's start or the first run. */
  model: ModelLoader;
  skillsDir: string;
  /** Where runs are recorded, in order and off the run's path. */
  runs: RunRecorder;
  logger: Logger;
  tools: ToolRegistry;
  approvals: ApprovalRequester;
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
}

/** Model retries for 429 and 5xx (the SDK backs off exponentially and honours Retry-After). */
const MODEL_RETRIES = 2;

/** Builds the one function every trigger runs prompts through. */
export function createAgentRunner(deps: AgentRunnerDeps): RunAgent {
  const now = deps.now ?? Date.now;
  const { runs } = deps;

  return async function runAgent(request: RunRequest): Promise<RunResult> {
    const runId = request.runId ?? randomUUID();
    const startedAtMs = now();
    const { skills, warnings } = loadSkills(deps.skillsDir, request.skills ?? [], request.firstSkillOnly === true);
    for (const warning of warnings) deps.logger.warn({ runId, origin: request.origin }, `Skill skipped: ${warning}`);
    const systemPrompt = buildSystemPrompt({ workdir: deps.agent.workdir, skills, extra: request.system });
    const tools = deps.tools.list();
    runs.started({ id: runId, origin: request.origin, provider: deps.agent.model.provider, model: deps.agent.model.name, systemPrompt, prompt: request.prompt, startedAtMs });
    deps.events?.emit('run.started', { runId, origin: request.origin, prompt: request.prompt, atMs: startedAtMs });

    const state = { steps: 0, toolCalls: [] as ToolCallRecord[], usage: { inputTokens: 0, outputTokens: 0 }, output: '' };
    const finish = (status: RunStatus, error?: string): RunResult => {
      const result: RunResult = {
        runId, status, output: state.output, steps: state.steps, toolCalls: state.toolCalls, usage: state.usage, startedAtMs, finishedAtMs: now(),
        ...(error ? { error } : {}), ...(warnings.length > 0 ? { skillWarnings: warnings } : {}),
      };
      runs.finished(result);
      if (status !== 'ok' || request.callerLogsOk !== true) {
        deps.logger.info({ runId, origin: request.origin, status, steps: state.steps, toolCalls: state.toolCalls.length, error, ...(status === 'ok' && request.origin.startsWith('webhook:') ? PER_DELIVERY : {}) }, `Run ${status}: ${request.origin}`);
      }
      deps.events?.emit('run.finished', { ...result, origin: request.origin });
      return result;
    };

    const language = await deps.model.get();
    if (!language) {
      state.output = dryRunAnswer(systemPrompt, request.prompt, tools);
      return finish('ok');
    }

    // One signal for the run: its deadline or the caller's cancel. A timer cleared when the run ends,
    // not AbortSignal.timeout (whose timer stays until it fires: one per run for run_timeout_seconds)
    // nor AbortSignal.any (a dependent signal with weak references per run).
    const limit = new AbortController();
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      limit.abort(new DOMException('The run exceeded agent.run_timeout_seconds', 'TimeoutError'));
    }, deps.agent.runTimeoutMs);
    deadline.unref();
    const unfollow = followAbort(limit, request.signal);
    const emit = (event: Parameters<NonNullable<RunRequest['onEvent']>>[0]) => {
      request.onEvent?.(event);
      deps.events?.emit('run.progressed', { runId, origin: request.origin, event });
    };
    try {
      const outcome = await toolLoop({ model: language, systemPrompt, prompt: request.prompt, tools, signal: limit.signal, runId, request, state, emit });
      return outcome === 'answered' ? finish('ok') : finish('failed', `stopped after agent.max_steps (${deps.agent.maxSteps}) steps without a final answer`);
    } catch (error) {
      if (timedOut) return finish('timeout', `run exceeded agent.run_timeout_seconds (${deps.agent.runTimeoutMs / 1000} s)`);
      if (request.signal?.aborted) return finish('cancelled', 'the run was cancelled');
      return finish('failed', await describeModelError(error, deps.agent.model.provider, deps.agent.model.apiKey));
    } finally {
      clearTimeout(deadline);
      unfollow();
    }
  };

  async function toolLoop(input: {
    model: LanguageModel; systemPrompt: string; prompt: string; tools: ToolDefinition[]; signal: AbortSignal; runId: string;
    request: RunRequest; state: { steps: number; toolCalls: ToolCallRecord[]; usage: RunResult['usage']; output: string };
    emit: (event: Parameters<NonNullable<RunRequest['onEvent']>>[0]) => void;
  }): Promise<'answered' | 'max_steps'> {
    const { state } = input;
    const ai = await loadAiSdk();
    const tools = providerTools(input.tools);
    const prompt: ModelPrompt = [{ role: 'system', content: input.systemPrompt }, { role: 'user', content: [{ type: 'text', text: input.prompt }] }];
    const context: ToolContext = {
      runId: input.runId,
      origin: input.request.origin,
      signal: input.signal,
      requestApproval: (approval) => deps.approvals.request({ ...approval, origin: input.request.origin }, input.signal),
    };
    while (state.steps < deps.agent.maxSteps) {
      state.steps += 1;
      input.emit({ kind: 'step.started', step: state.steps });
      const step = await modelStep(ai, input.model as ProviderModel, { prompt, tools, signal: input.signal, maxRetries: MODEL_RETRIES });
      state.usage.inputTokens += step.usage.inputTokens;
      state.usage.outputTokens += step.usage.outputTokens;
      state.output = step.text;
      prompt.push(...step.messages);
      if (step.calls.length === 0 && step.rejected.length === 0) return 'answered';

      // Calls the model could not make (unknown tool, arguments not JSON) already have their error
      // answer in step.messages: record them, run the rest.
      const stepAtMs = now();
      const rejected: ToolCallRecord[] = step.rejected.map((call) => ({ id: call.id, name: call.name, args: call.input, result: call.error, isError: true, startedAtMs: stepAtMs, finishedAtMs: stepAtMs }));
      const calls: PendingCall[] = step.calls.map((call) => ({ id: call.id, name: call.name, args: call.input }));
      const records = await executeToolCalls(calls, deps.tools, context, now, (call) => {
        const source = deps.tools.get(call.name)?.source;
        input.emit({ kind: 'tool.called', call: { id: call.id, name: call.name, args: call.args, ...(source ? { source } : {}) } });
      });
      for (const record of [...rejected, ...records]) {
        runs.toolCall(input.runId, state.toolCalls.length, record);
        state.toolCalls.push(record);
        input.emit({ kind: 'tool.finished', call: record });
      }
      if (records.length === 0) continue;
      prompt.push({
        role: 'tool',
        content: records.map((record) => ({
          type: 'tool-result' as const,
          toolCallId: record.id,
          toolName: record.name,
          output: record.isError ? { type: 'error-text' as const, value: record.result } : { type: 'text' as const, value: record.result },
        })),
      });
      input.signal.throwIfAborted();
    }
    return 'max_steps';
  }
}
