import { storedJson, STORED_TEXT_BYTES, truncateMiddle } from '../agent/truncate.js';
import type { RunResult, RunStatus, ToolCallRecord } from '../agent/types.js';
import type { Store } from './database.js';

export interface RunRow {
  id: string;
  origin: string;
  /** `interrupted`: the gateway stopped (a crash, kill -9) while it ran; closed at the next start. */
  status: RunStatus | 'running' | 'interrupted';
  provider: string;
  model: string | null;
  systemPrompt: string;
  prompt: string;
  output: string | null;
  error: string | null;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  startedAtMs: number;
  finishedAtMs: number | null;
  toolCalls: Array<{ callId: string; name: string; args: string; result: string; isError: boolean; startedAtMs: number; finishedAtMs: number }>;
}

const columns = `id, origin, status, provider, model, system_prompt AS systemPrompt, prompt, output, error, steps,
  input_tokens AS inputTokens, output_tokens AS outputTokens, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs`;

/** Every agent run, with its tool calls (arguments and results cut to 16 KiB). Writes share the store's group commit. */
export function createRunStore(store: Store) {
  const insert = store.db.prepare(`INSERT INTO runs (id, origin, status, provider, model, system_prompt, prompt, started_at_ms)
    VALUES (?, ?, 'running', ?, ?, ?, ?, ?)`);
  const finish = store.db.prepare(`UPDATE runs SET status = ?, output = ?, error = ?, steps = ?, input_tokens = ?, output_tokens = ?, finished_at_ms = ? WHERE id = ?`);
  const insertCall = store.db.prepare(`INSERT INTO run_tool_calls (run_id, seq, call_id, name, args, result, is_error, started_at_ms, finished_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const interrupt = store.db.prepare(`UPDATE runs SET status = 'interrupted', error = ?, finished_at_ms = ? WHERE status = 'running'`);
  const byId = store.db.prepare(`SELECT ${columns} FROM runs WHERE id = ?`);
  const recent = store.db.prepare(`SELECT ${columns} FROM runs ORDER BY started_at_ms DESC, rowid DESC LIMIT ?`);
  const calls = store.db.prepare(`SELECT call_id AS callId, name, args, result, is_error AS isError, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs
    FROM run_tool_calls WHERE run_id = ? ORDER BY seq`);

  const withCalls = (row: Record<string, unknown> | undefined): RunRow | undefined => {
    if (!row) return undefined;
    const toolCalls = calls.all(row.id as string).map((call) => ({ ...call, isError: call.isError === 1 })) as RunRow['toolCalls'];
    return { ...(row as unknown as RunRow), toolCalls };
  };

  // Kept writes: a run's record waits out a lock held elsewhere or a full disk instead of failing the run.
  const keep = (write: () => void) => void store.keep(write).catch(() => {});
  return {
    started(run: { id: string; origin: string; provider: string; model?: string; systemPrompt: string; prompt: string; startedAtMs: number }): void {
      keep(() => insert.run(run.id, run.origin, run.provider, run.model ?? null, run.systemPrompt, run.prompt, run.startedAtMs));
    },
    toolCall(runId: string, seq: number, call: ToolCallRecord): void {
      keep(() => insertCall.run(runId, seq, call.id, call.name, storedJson(call.args), truncateMiddle(call.result, STORED_TEXT_BYTES), call.isError ? 1 : 0, call.startedAtMs, call.finishedAtMs));
    },
    finished(result: RunResult): void {
      keep(() => finish.run(result.status, result.output, result.error ?? null, result.steps, result.usage.inputTokens, result.usage.outputTokens, result.finishedAtMs, result.runId));
    },
    /** At gateway start: runs a gateway that died left `running` (the process that ran them is gone). */
    closeInterrupted: (reason: string, nowMs: number): number => Number(store.transaction(() => interrupt.run(reason, nowMs)).changes),
    get: (id: string): RunRow | undefined => withCalls(byId.get(id) as Record<string, unknown> | undefined),
    recent: (limit = 20): RunRow[] => recent.all(limit).map((row) => withCalls(row as Record<string, unknown>)!),
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
