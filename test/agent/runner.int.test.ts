import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../source/agent/types.js';
import type { ConfigFile } from '../../source/config/types.js';
import { makeAgentStack } from '../helpers/agent.js';
import { startScriptedModel, type ScriptStep, type ScriptedModel } from '../fixtures/scripted-model.js';
import { tempHome } from '../helpers/temp-home.js';

const servers: ScriptedModel[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(script: ScriptStep[], edit: (config: ConfigFile) => void = () => {}, provider: 'openai-compatible' | 'anthropic' | 'openai' = 'openai-compatible') {
  const model = await startScriptedModel(script);
  servers.push(model);
  const home = tempHome();
  const stack = makeAgentStack(home, (config) => {
    config.model = { provider, base_url: model.url, name: 'scripted-1', api_key: 'sk-test-key-123456' };
    config.agent = { terminal: { approval: 'never' } };
    edit(config);
  });
  return { model, home, ...stack };
}

/** The text of the tool results the model received in its last request (OpenAI shape). */
function toolMessages(body: Record<string, unknown>): string[] {
  return (body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
}

describe('agent runner against a scripted OpenAI-compatible server', () => {
  it('runs a multi-step task with the terminal tool and records everything in the store', async () => {
    const { model, runAgent, runs, home } = await setup([
      { toolCalls: [{ name: 'terminal', args: { command: 'printf hello > note.txt && cat note.txt && pwd' } }] },
      { text: 'The note says hello.' },
    ]);
    const events: string[] = [];
    const result = await runAgent({ prompt: 'Write a note', origin: 'cli', onEvent: (event) => events.push(event.kind) });

    expect(result.status).toBe('ok');
    expect(result.output).toBe('The note says hello.');
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 22, outputTokens: 14 });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.result).toBe(`exit code 0\nhello${home.workspaceDir}\n`);
    expect(fs.readFileSync(path.join(home.workspaceDir, 'note.txt'), 'utf8')).toBe('hello');
    expect(events).toEqual(['step.started', 'tool.called', 'tool.finished', 'step.started']);

    expect(model.requests).toHaveLength(2);
    const first = model.requests[0]!;
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer sk-test-key-123456');
    expect(first.body.model).toBe('scripted-1');
    expect((first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['terminal']);
    expect(toolMessages(model.requests[1]!.body)).toEqual([`exit code 0\nhello${home.workspaceDir}\n`]);

    const stored = (await runs.get(result.runId))!;
    expect(stored).toMatchObject({ origin: 'cli', status: 'ok', output: 'The note says hello.', steps: 2, provider: 'openai-compatible', prompt: 'Write a note' });
    expect(stored.systemPrompt).toContain('You are the Switchboard agent');
    expect(stored.toolCalls).toEqual([expect.objectContaining({ name: 'terminal', isError: false, args: JSON.stringify({ command: 'printf hello > note.txt && cat note.txt && pwd' }) })]);
  });

  it('runs calls to parallel-safe tools concurrently and the others in order', async () => {
    const { runAgent, tools } = await setup([
      { toolCalls: [{ name: 'slow_read', args: { id: 'a' } }, { name: 'slow_read', args: { id: 'b' } }, { name: 'write_note', args: { id: 'c' } }, { name: 'slow_read', args: { id: 'd' } }] },
      { text: 'done' },
    ]);
    const timeline: Array<{ id: string; start: number; end: number }> = [];
    const timed = (name: string, parallelSafe: boolean): ToolDefinition => ({
      name, description: name, parallelSafe, inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
      async execute(args) {
        const start = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 150));
        timeline.push({ id: String(args.id), start, end: performance.now() });
        return `ok ${String(args.id)}`;
      },
    });
    tools.register(timed('slow_read', true));
    tools.register(timed('write_note', false));
    const result = await runAgent({ prompt: 'go', origin: 'cli' });
    expect(result.toolCalls.map((call) => call.result)).toEqual(['ok a', 'ok b', 'ok c', 'ok d']);
    const at = Object.fromEntries(timeline.map((entry) => [entry.id, entry]));
    expect(at.b!.start).toBeLessThan(at.a!.end); // a and b overlapped
    expect(at.c!.start).toBeGreaterThanOrEqual(Math.max(at.a!.end, at.b!.end)); // c waited for both
    expect(at.d!.start).toBeGreaterThanOrEqual(at.c!.end); // d waited for c
  });

  it('turns a throwing tool and an unknown tool into tool errors the model sees', async () => {
    const { model, runAgent, tools } = await setup([
      { toolCalls: [{ name: 'explode', args: {} }, { name: 'no_such_tool', args: {} }] },
      { text: 'recovered' },
    ]);
    tools.register({ name: 'explode', description: 'throws', inputSchema: { type: 'object' }, execute: async () => { throw new Error('kaboom'); } });
    const result = await runAgent({ prompt: 'go', origin: 'cli' });
    expect(result.status).toBe('ok');
    const byName = Object.fromEntries(result.toolCalls.map((call) => [call.name, [call.isError, call.result]]));
    expect(byName).toEqual({ explode: [true, 'Tool explode failed: kaboom'], no_such_tool: [true, expect.stringContaining("unavailable tool 'no_such_tool'")] });
    // Each call is answered exactly once.
    expect(toolMessages(model.requests[1]!.body).sort()).toEqual(['Tool explode failed: kaboom', expect.stringContaining("unavailable tool 'no_such_tool'")].sort());
    expect(toolMessages(model.requests[1]!.body)).toHaveLength(2);
  });

  it('stops at agent.max_steps with a failed run', async () => {
    const { runAgent } = await setup(
      [{ toolCalls: [{ name: 'terminal', args: { command: 'true' } }] }, { toolCalls: [{ name: 'terminal', args: { command: 'true' } }] }, { text: 'never reached' }],
      (config) => { config.agent!.max_steps = 2; },
    );
    const result = await runAgent({ prompt: 'loop', origin: 'cli' });
    expect(result.status).toBe('failed');
    expect(result.steps).toBe(2);
    expect(result.error).toBe('stopped after agent.max_steps (2) steps without a final answer');
  });

  it('ends a run that exceeds agent.run_timeout_seconds as timeout', async () => {
    const { runAgent, runs } = await setup([{ text: 'too late', delayMs: 5000 }], (config) => { config.agent!.run_timeout_seconds = 0.4; });
    const started = Date.now();
    const result = await runAgent({ prompt: 'slow', origin: 'cli' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.status).toBe('timeout');
    expect(result.error).toBe('run exceeded agent.run_timeout_seconds (0.4 s)');
    expect((await runs.get(result.runId))!.status).toBe('timeout');
  });

  it('is cancelled through its AbortSignal', async () => {
    const { runAgent } = await setup([{ text: 'x', delayMs: 5000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await runAgent({ prompt: 'slow', origin: 'cli', signal: controller.signal });
    expect(result.status).toBe('cancelled');
  });

  it('retries a 429 (honouring Retry-After) and succeeds', async () => {
    const { model, runAgent } = await setup([{ status: 429, message: 'slow down', headers: { 'retry-after-ms': '20' } }, { status: 503, message: 'busy', headers: { 'retry-after-ms': '20' } }, { text: 'third time lucky' }]);
    const result = await runAgent({ prompt: 'hi', origin: 'cli' });
    expect(result).toMatchObject({ status: 'ok', output: 'third time lucky' });
    expect(model.requests).toHaveLength(3);
  });

  it('turns a 401 into a failed run with the provider message, without retrying or leaking the key', async () => {
    const { model, runAgent } = await setup([{ status: 401, message: 'Incorrect API key provided: sk-test-key-123456' }]);
    const result = await runAgent({ prompt: 'hi', origin: 'cli' });
    expect(result.status).toBe('failed');
    expect(result.error).toBe('openai-compatible answered HTTP 401: Incorrect API key provided: ********');
    expect(model.requests).toHaveLength(1);
  });

  it('fails a run cleanly when the model server is unreachable', async () => {
    const { runAgent, model } = await setup([]);
    await model.close();
    const result = await runAgent({ prompt: 'hi', origin: 'cli' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^openai-compatible request failed: Cannot connect to API: connect ECONNREFUSED .* \(after 3 attempts\)$/);
  });

  it('uses the openai provider through its own client (Chat Completions) with the key as a bearer token', async () => {
    const { model, runAgent } = await setup([{ text: 'hello from openai' }], () => {}, 'openai');
    const result = await runAgent({ prompt: 'hi', origin: 'cli' });
    expect(result.output).toBe('hello from openai');
    expect(model.requests[0]!.path).toBe('/v1/chat/completions');
    expect(model.requests[0]!.headers.authorization).toBe('Bearer sk-test-key-123456');
  });
});

describe('agent runner against a scripted Anthropic Messages server', () => {
  it('runs a multi-step task with the terminal tool', async () => {
    const { model, runAgent } = await setup([
      { toolCalls: [{ name: 'terminal', args: { command: 'echo from-anthropic' } }], text: 'Let me check.' },
      { text: 'It printed from-anthropic.' },
    ], () => {}, 'anthropic');
    const result = await runAgent({ prompt: 'echo something', origin: 'cli' });
    expect(result).toMatchObject({ status: 'ok', output: 'It printed from-anthropic.', steps: 2 });
    expect(result.toolCalls[0]!.result).toBe('exit code 0\nfrom-anthropic\n');
    expect(model.requests[0]!.path).toBe('/v1/messages');
    expect(model.requests[0]!.headers['x-api-key']).toBe('sk-test-key-123456');
    expect(model.requests[0]!.body.system).toEqual([expect.objectContaining({ text: expect.stringContaining('You are the Switchboard agent') })]);
    const second = model.requests[1]!.body.messages as Array<{ role: string; content: Array<{ type: string; content?: unknown }> }>;
    const toolResult = second.at(-1)!.content.find((part) => part.type === 'tool_result')!;
    expect(JSON.stringify(toolResult.content)).toContain('from-anthropic');
  });

  it('retries a 529/429 and reports a 401 as a failed run', async () => {
    const { runAgent } = await setup([{ status: 429, message: 'rate', headers: { 'retry-after-ms': '10' } }, { text: 'ok' }], () => {}, 'anthropic');
    expect((await runAgent({ prompt: 'hi', origin: 'cli' })).output).toBe('ok');
    const failing = await setup([{ status: 401, message: 'invalid x-api-key' }], () => {}, 'anthropic');
    const result = await failing.runAgent({ prompt: 'hi', origin: 'cli' });
    expect(result).toMatchObject({ status: 'failed', error: 'anthropic answered HTTP 401: invalid x-api-key' });
  });
});

describe('approvals in runs', () => {
  it('denies a dangerous command at once under the headless deny policy; nothing runs', async () => {
    const { runAgent, model, home, approvals } = await setup(
      [{ toolCalls: [{ name: 'terminal', args: { command: 'mkdir victim && rm -rf victim' } }] }, { text: 'ok, not done' }],
      (config) => { config.agent!.terminal = { approval: 'dangerous' }; },
    );
    const result = await runAgent({ prompt: 'clean up', origin: 'cli' });
    expect(result.status).toBe('ok');
    expect(result.toolCalls[0]!.isError).toBe(true);
    expect(result.toolCalls[0]!.result).toContain('the command was not run; do not retry without being asked');
    expect(toolMessages(model.requests[1]!.body)[0]).toContain('do not retry without being asked');
    expect(fs.existsSync(path.join(home.workspaceDir, 'victim'))).toBe(false);
    expect(approvals.pending()).toEqual([]);
  });

  it('lets a safe command through without asking under the dangerous policy', async () => {
    const { runAgent } = await setup([{ toolCalls: [{ name: 'terminal', args: { command: 'echo safe' } }] }, { text: 'fine' }], (config) => { config.agent!.terminal = { approval: 'dangerous' }; });
    const result = await runAgent({ prompt: 'x', origin: 'cli' });
    expect(result.toolCalls[0]!.result).toBe('exit code 0\nsafe\n');
  });
});
