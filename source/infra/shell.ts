import { recordChild } from './child-records.js';
import { guardProcessGroup } from './process-group.js';

export interface ShellOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** `<home>/run/children`: the command is recorded there while it runs (reaped after a gateway crash). */
  childrenDir?: string;
}

export interface ShellResult {
  exitCode: number | null;
  /** stdout and stderr interleaved as they came; head and tail kept when over the cap. */
  output: string;
  truncatedBytes: number;
  timedOut: boolean;
  cancelled: boolean;
  signal: string | null;
}

/**
 * Runs one command with `/bin/sh -c` in its own process group, stdin closed. On timeout or
 * cancellation the whole group is killed, so nothing the command started outlives it.
 */
export async function runShell(options: ShellOptions): Promise<ShellResult> {
  const { execa } = await import('execa'); // loaded on the first command: a gateway that runs none never loads it
  const child = execa('/bin/sh', ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: options.env === undefined,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    detached: true,
  });
  const capture = createHeadTailCapture(options.maxOutputBytes);
  child.all?.on('data', (chunk: Buffer) => capture.push(chunk));

  const forget = recordChild(options.childrenDir, child.pid, 'terminal command');
  const guard = guardProcessGroup(child, options);
  const { state } = guard;
  try {
    const result = await child;
    return { exitCode: result.exitCode ?? null, output: capture.text(), truncatedBytes: capture.truncatedBytes(), timedOut: state.timedOut, cancelled: state.cancelled, signal: result.signal ?? null };
  } finally {
    guard.release();
    forget();
  }
}

/** Keeps the first and last half of the cap; counts what fell in between. */
function createHeadTailCapture(maxBytes: number) {
  const half = Math.floor(maxBytes / 2);
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  let total = 0;
  return {
    push(chunk: Buffer) {
      total += chunk.length;
      if (head.length < half) {
        const take = Math.min(half - head.length, chunk.length);
        head = Buffer.concat([head, chunk.subarray(0, take)]);
        chunk = chunk.subarray(take);
      }
      if (chunk.length > 0) {
        tail = Buffer.concat([tail, chunk]);
        if (tail.length > half) tail = tail.subarray(tail.length - half);
      }
    },
    truncatedBytes: () => Math.max(0, total - head.length - tail.length),
    text() {
      const cut = total - head.length - tail.length;
      if (cut <= 0) return Buffer.concat([head, tail]).toString('utf8');
      return `${head.toString('utf8')}\n[... ${cut} bytes of output truncated ...]\n${tail.toString('utf8')}`;
    },
  };
}
