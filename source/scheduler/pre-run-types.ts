import type { ScriptRunResult } from '../infra/run-script.js';

export type { ScriptRunResult };

/** What the main process hands a pre-run worker. */
export interface PreRunRequest {
  fireId: string;
  script: string;
  timeoutMs: number;
}

/** What the worker posts back before it says `done`. */
export interface PreRunMessage {
  kind: 'pre-run.result';
  fireId: string;
  result: ScriptRunResult;
}
