import v8 from 'node:v8';

/**
 * V8 heap settings for an attached console, set at run time (the console is started as
 * `node main.js`, so it cannot take V8 flags on its command line).
 *
 * Measured under the attach benchmark (500 webhooks/s, scripts/bench-attach.ts): the console's live
 * heap stays near 25 MB, but its peak RSS passed 150 MB because V8, on a machine with plenty of
 * memory, (1) doubles the young generation up to 2 x 16 MB as soon as a flood starts, and (2) lets
 * old space fill with promoted garbage (replaced webhook rows, render leftovers) to about twice the
 * live size before its first full collection. So: the young generation stops growing at
 * `maxNewSpaceBytes` (V8 reads `--semi-space-growth-factor` each time it would grow; a factor of 1
 * holds the size, and 2 is set back when V8 has shrunk it below the cap, so it can grow again), and
 * old space is collected once it is `growingPercent` % above what the last full GC kept.
 */
export interface HeapTuning {
  /** Old space may grow this much (in %) over the live size before the next full GC. */
  growingPercent: number;
  /** Young generation (both semi-spaces) that V8 may grow to. */
  maxNewSpaceBytes: number;
  /** How often the young generation's size is checked (V8 needs seconds of survivors to grow it once). */
  checkMs: number;
}

export const ATTACHED_CONSOLE_HEAP: HeapTuning = { growingPercent: 30, maxNewSpaceBytes: 16 * 1024 * 1024, checkMs: 250 };

/**
 * A console with the gateway in its process: old space is collected early as above (the rows and
 * frames it replaces are garbage the same way), but the young generation grows as V8 likes, since
 * the intake there allocates per request and a small young generation would promote its garbage.
 * Measured with scripts/bench-console.ts (docs/benchmarks.md).
 */
export const IN_PROCESS_CONSOLE_HEAP: HeapTuning = { growingPercent: 30, maxNewSpaceBytes: Number.POSITIVE_INFINITY, checkMs: 1000 };

/**
 * The headless gateway (`switchboard gateway`): old space as above. Its young generation is held
 * small from the start instead (`--max-semi-space-size=4`, which the gateway command adds by
 * re-executing itself: source/cli/gateway-node-flags.ts; V8 reads that size only at start).
 * Together they keep a draining gateway under 150 MB (docs/perf/drain.md).
 */
export const GATEWAY_HEAP: HeapTuning = IN_PROCESS_CONSOLE_HEAP;

export interface HeapTuningDeps {
  setFlags(flags: string): void;
  /** Current capacity of the young generation in bytes. */
  newSpaceBytes(): number;
}

const v8Deps: HeapTuningDeps = {
  setFlags: (flags) => v8.setFlagsFromString(flags),
  newSpaceBytes: () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
};

/** V8's default: growing factor chosen by V8 itself, the young generation doubling. */
const DEFAULT_FLAGS = '--heap-growing-percent=0 --semi-space-growth-factor=2';

/** Applies `tuning`; returns the function that stops the check and puts V8's defaults back. */
export function tuneHeap(tuning: HeapTuning = ATTACHED_CONSOLE_HEAP, deps: HeapTuningDeps = v8Deps): () => void {
  deps.setFlags(`--heap-growing-percent=${tuning.growingPercent}`);
  let holding: boolean | undefined;
  const check = () => {
    const full = deps.newSpaceBytes() >= tuning.maxNewSpaceBytes;
    if (full === holding) return;
    holding = full;
    deps.setFlags(`--semi-space-growth-factor=${full ? 1 : 2}`);
  };
  check();
  const timer = setInterval(check, tuning.checkMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    deps.setFlags(DEFAULT_FLAGS);
  };
}
