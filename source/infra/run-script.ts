import path from 'node:path';
import { recordChild } from './child-records.js';
import { guardProcessGroup } from './process-group.js';

export interface ScriptRunOptions {
  /** Absolute path of an executable file; it runs with its own folder as working directory. */
  file: string;
  timeoutMs: number;
  /** A stream writing more than this fails the script (default 1 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** `<home>/run/children`: the script is recorded there while it runs (reaped after a gateway crash). */
  childrenDir?: string;
}

export interface ScriptRunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Spawn failure (missing file, not executable). */
  failure: string | null;
  durationMs: number;
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * A job's pre-run script: no shell, stdin closed, in its own process group. On timeout or
 * cancellation the whole group gets SIGKILL, so children the script started die with it.
 */
export async function runScript(options: ScriptRunOptions): Promise<ScriptRunResult> {
  const startedAt = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const { execa } = await import('execa'); // loaded on the first script
  const child = execa(options.file, [], {
    cwd: path.dirname(options.file),
    stdin: 'ignore',
    reject: false,
    detached: true,
    maxBuffer: maxBytes,
    stripFinalNewline: false,
  });
  const forget = recordChild(options.childrenDir, child.pid, `pre-run script ${options.file}`);
  const guard = guardProcessGroup(child, options);
  const { state } = guard;
  try {
    const result = await child;
    const spawnFailed = result.failed && result.exitCode === undefined && !result.signal && !state.timedOut && !state.cancelled;
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      timedOut: state.timedOut,
      cancelled: state.cancelled,
      failure: spawnFailed ? (result.originalMessage ?? result.shortMessage ?? 'could not start') : null,
      durationMs: Math.round(performance.now() - startedAt),
    };
  } finally {
    guard.release();
    forget();
  }
}
