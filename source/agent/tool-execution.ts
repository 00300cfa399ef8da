import type { ToolCallRecord, ToolContext, ToolDefinition, ToolRegistry } from './types.js';
import { truncateMiddle } from './truncate.js';

export interface PendingCall {
  id: string;
  name: string;
  args: unknown;
}

const RESULT_BYTES = 64 * 1024;

/**
 * Runs one step's tool calls: consecutive calls to parallel-safe tools run together, every other
 * call runs alone, in the model's order. Results come back in call order.
 */
export async function executeToolCalls(calls: readonly PendingCall[], registry: ToolRegistry, context: ToolContext, now: () => number, onStart: (call: PendingCall) => void): Promise<ToolCallRecord[]> {
  const records: ToolCallRecord[] = [];
  let index = 0;
  while (index < calls.length) {
    const batch = [calls[index]!];
    if (isParallelSafe(registry.get(batch[0]!.name))) {
      while (index + batch.length < calls.length && isParallelSafe(registry.get(calls[index + batch.length]!.name))) batch.push(calls[index + batch.length]!);
    }
    records.push(...(await Promise.all(batch.map((call) => executeOne(call, registry, context, now, onStart)))));
    index += batch.length;
  }
  return records;
}

function isParallelSafe(tool: ToolDefinition | undefined): boolean {
  return tool?.parallelSafe === true;
}

async function executeOne(call: PendingCall, registry: ToolRegistry, context: ToolContext, now: () => number, onStart: (call: PendingCall) => void): Promise<ToolCallRecord> {
  const startedAtMs = now();
  onStart(call);
  const done = (result: string, isError: boolean): ToolCallRecord => ({ id: call.id, name: call.name, args: call.args, result: truncateMiddle(result, RESULT_BYTES), isError, startedAtMs, finishedAtMs: now() });
  const tool = registry.get(call.name);
  if (!tool) return done(`Unknown tool "${call.name}". Available: ${registry.list().map((t) => t.name).join(', ') || '(none)'}`, true);
  try {
    const args = call.args !== null && typeof call.args === 'object' ? (call.args as Record<string, unknown>) : {};
    const output = await tool.execute(args, context);
    return typeof output === 'string' ? done(output, false) : done(output.text, output.isError === true);
  } catch (error) {
    // A throwing tool is a tool error the model can react to, not a failed run.
    return done(`Tool ${call.name} failed: ${(error as Error)?.message ?? String(error)}`, true);
  }
}
