import { lazyCrypto } from '../infra/lazy-builtins.js';
import type { RunResult } from '../agent/types.js';
import type { RunRow } from '../store/runs.js';
import type { OperationsCore } from './core.js';
import { OperatorError } from './errors.js';
import { optionalText, optionalTextList, text, type Implementation, type Params } from './params.js';

export interface RunOperations {
  /**
   * Runs one prompt and waits for its result. `runId` may be chosen by the caller, so that it can
   * follow the run's `run.progressed` events (tool calls) before the answer arrives.
   */
  run(params: { prompt: string; skills?: string[]; origin?: string; runId?: string }): Promise<RunResult>;
  /** The stored record of a run: prompt, model, tool calls, result. */
  get(params: { runId: string }): Promise<RunRow>;
  /** Cancels any run in flight (webhook, job, console or CLI): its tool calls and approvals end as cancelled. */
  cancel(params: { runId: string }): Promise<{ runId: string; cancelled: boolean }>;
}

export function createRunOperations(core: OperationsCore): RunOperations {
  return {
    async run(params: Params) {
      const prompt = text(params, 'prompt', 'runs.run');
      const runId = optionalText(params, 'runId', 'runs.run') ?? lazyCrypto().randomUUID();
      if (core.where === 'gateway' && (await core.gateway()).runs.inFlight().includes(runId)) throw new OperatorError('conflict', `A run with id ${runId} is already in flight`);
      const work = async () => (await core.gateway()).runAgent({
        prompt, runId, skills: optionalTextList(params, 'skills', 'runs.run') ?? [], origin: optionalText(params, 'origin', 'runs.run') ?? 'cli',
      });
      return core.withRuntime ? core.withRuntime(work) : work();
    },
    async get(params: Params) {
      const runId = text(params, 'runId', 'runs.get');
      const record = await (await core.gateway()).runs.get(runId);
      if (!record) throw new OperatorError('not_found', `No run ${runId} is recorded`);
      return record;
    },
    async cancel(params: Params) {
      const runId = text(params, 'runId', 'runs.cancel');
      if (!(await core.gateway()).runs.cancel(runId)) throw new OperatorError('not_found', `No run ${runId} is in flight`, 'It may have finished already; see the run history.');
      return { runId, cancelled: true };
    },
  } satisfies Implementation<RunOperations> as unknown as RunOperations;
}
