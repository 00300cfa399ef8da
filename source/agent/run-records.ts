import type { Logger } from 'pino';
import type { RunBackend } from '../store/async-domains.js';
import type { RunRow } from '../store/runs.js';
import type { RunResult, ToolCallRecord } from './types.js';

type StartedRun = Parameters<RunBackend['started']>[0];

/**
 * What a run records, off its hot path: a run never waits for the store (on SQLite the writes are
 * kept through a lock held elsewhere), yet its rows reach the store in order: the run row, then
 * its tool calls, then its result (a tool call row needs its run row). A store whose writes commit
 * in the order they are made (PostgreSQL's record writes, `writesInOrder`) gets each at once, so
 * that a run's start and end can ride in one statement; otherwise each waits for the one before.
 * A write that fails is logged with the run's id, and the run goes on.
 */
export interface RunRecorder {
  started(run: StartedRun): void;
  toolCall(runId: string, seq: number, call: ToolCallRecord): void;
  finished(result: RunResult): void;
  /** The stored record of a run, read once the writes this process made for it have settled. */
  get(runId: string): Promise<RunRow | undefined>;
  /** Settles when every write made so far has settled (shutdown, before the store closes). */
  settled(): Promise<void>;
}

export function createRunRecorder(runs: RunBackend, logger: Logger): RunRecorder {
  // Per run with writes in flight: the last one and how many are unsettled.
  const chains = new Map<string, { last: Promise<void>; open: number }>();

  const write = (runId: string, what: string, op: () => Promise<void>): void => {
    const attempt = async () => {
      try {
        await op();
      } catch (error) {
        logger.error({ err: error, runId }, `Recording the ${what} of run ${runId} failed; the run goes on, its stored record lacks it`);
      }
    };
    const chain = chains.get(runId);
    const entry = chain ?? { last: Promise.resolve(), open: 0 };
    entry.open += 1;
    // Nothing of this run in flight, or a store that keeps the order itself: write now (SQLite
    // then has it when this returns, as before).
    entry.last = (chain && !runs.writesInOrder ? chain.last.then(attempt) : attempt()).finally(() => {
      entry.open -= 1;
      if (entry.open === 0 && chains.get(runId) === entry) chains.delete(runId);
    });
    if (!chain) chains.set(runId, entry);
  };

  return {
    started: (run) => write(run.id, 'start', () => runs.started(run)),
    toolCall: (runId, seq, call) => write(runId, `tool call ${seq + 1} (${call.name})`, () => runs.toolCall(runId, seq, call)),
    finished: (result) => write(result.runId, `result (${result.status})`, () => runs.finished(result)),
    async get(runId) {
      await chains.get(runId)?.last;
      return runs.get(runId);
    },
    async settled() {
      await Promise.all([...chains.values()].map((chain) => chain.last));
    },
  };
}
