import { storedJson, STORED_TEXT_BYTES, truncateMiddle } from '../../agent/truncate.js';
import type { RunBackend } from '../async-domains.js';
import type { RunRow } from '../runs.js';
import type { PgStore } from './pg-store.js';

const columns = `id, origin, status, provider, model, system_prompt AS "systemPrompt", prompt, output, error, steps,
  input_tokens AS "inputTokens", output_tokens AS "outputTokens", started_at_ms AS "startedAtMs", finished_at_ms AS "finishedAtMs"`;

/**
 * Every agent run with its tool calls, on PostgreSQL (arguments and results cut as on SQLite).
 * The run's rows are record writes (PgStore.recordWrite): they ride with the node's next claim or
 * final state, or go within 20 ms without waiting for the disk, in the order they were made (so
 * the recorder need not wait for one before making the next: `writesInOrder`). After a crash of
 * PostgreSQL a webhook run whose record was lost is run again (its delivery's state, written
 * durably, says so), as after a crash of the node before the record was written; a later durable
 * commit (the delivery's) makes them durable first.
 */
export function createPgRunStore(store: PgStore, nodeId: string): RunBackend {
  const withCalls = async (rows: Array<Omit<RunRow, 'toolCalls'>>): Promise<RunRow[]> => {
    if (rows.length === 0) return [];
    const { rows: calls } = await store.query<RunRow['toolCalls'][number] & { runId: string }>(`SELECT run_id AS "runId", call_id AS "callId", name, args, result,
      is_error AS "isError", started_at_ms AS "startedAtMs", finished_at_ms AS "finishedAtMs" FROM run_tool_calls WHERE run_id = ANY($1) ORDER BY run_id, seq`,
    [rows.map((row) => row.id)]);
    return rows.map((row) => ({ ...row, toolCalls: calls.filter((call) => call.runId === row.id).map(({ runId: _runId, ...call }) => call) }));
  };
  return {
    writesInOrder: true,
    async started(run) {
      await store.recordWrite(`INSERT INTO runs (id, origin, status, provider, model, system_prompt, prompt, started_at_ms, node_id) VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8)`,
        [run.id, run.origin, run.provider, run.model ?? null, run.systemPrompt, run.prompt, run.startedAtMs, nodeId]);
    },
    async toolCall(runId, seq, call) {
      await store.recordWrite(`INSERT INTO run_tool_calls (run_id, seq, call_id, name, args, result, is_error, started_at_ms, finished_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [runId, seq, call.id, call.name, storedJson(call.args), truncateMiddle(call.result, STORED_TEXT_BYTES), call.isError, call.startedAtMs, call.finishedAtMs]);
    },
    async finished(result) {
      await store.recordWrite('UPDATE runs SET status = $1, output = $2, error = $3, steps = $4, input_tokens = $5, output_tokens = $6, finished_at_ms = $7 WHERE id = $8',
        [result.status, result.output, result.error ?? null, result.steps, result.usage.inputTokens, result.usage.outputTokens, result.finishedAtMs, result.runId]);
    },
    // As on SQLite: every running run. With several nodes: only the runs of a node that stopped (docs/cluster.md).
    closeInterrupted: async (reason, nowMs) => (await store.query(`UPDATE runs SET status = 'interrupted', error = $1, finished_at_ms = $2 WHERE status = 'running' AND node_id = $3`, [reason, nowMs, nodeId])).rowCount ?? 0,
    // Reads carry this node's run writes waiting (carried-writes.ts): a run shows as soon as it is asked for.
    get: async (id) => (await withCalls((await store.carryingQuery<Omit<RunRow, 'toolCalls'>>(`SELECT ${columns} FROM runs WHERE id = $1`, [id])).rows))[0],
    recent: async (limit = 20) => withCalls((await store.carryingQuery<Omit<RunRow, 'toolCalls'>>(`SELECT ${columns} FROM runs ORDER BY started_at_ms DESC, inserted DESC LIMIT $1`, [limit])).rows),
  };
}
