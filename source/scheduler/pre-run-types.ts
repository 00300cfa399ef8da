import type { ScriptRunResult } from '../infra/run-script.js';

export type { ScriptRunResult };

/** What the main process hands a pre-run worker. */
export interface PreRunRequest {
  fireId: string;
  script: string;
  timeoutMs: number;
  /** Where the script's pid file goes while it runs (see infra/child-records.ts). */
  childrenDir?: string;
}

/** What the worker posts back before it says `done`. */
export interface PreRunMessage {
  kind: 'pre-run.result';
  fireId: string;
  result: ScriptRunResult;
}
