import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Length of the window the gate judges, and the most a run start is held back under a flood. */
const WINDOW_MS = 100;
/** How soon a held-back run start asks again: a burst's end is seen within this (not a whole window later). */
const RETRY_MS = 20;
/** Event-loop utilisation above which the process counts as saturated. */
const SATURATED = 0.9;

export interface FloodGateOptions {
  /** Event-loop utilisation since `previous` (performance.eventLoopUtilization); injectable for tests. */
  utilization?: (previous?: EventLoopUtilization) => EventLoopUtilization;
  now?: () => number;
  /**
   * Whether the intake sees a burst now (several webhooks in one event-loop turn: burst-intake.ts).
   * A burst is a flood however busy the loop looks: on a machine short of CPU the loop waits for its
   * turn on a CPU as often as for work, and its utilisation stays under the threshold.
   */
  bursting?: () => boolean;
}

/**
 * Intake first under a flood. When webhooks arrived during the last window and the event loop was
 * saturated (or the intake saw a burst), the run queue starts at most one run per window: every 202 waits on the event loop, a
 * run does not (the queue is durable), and dry-run or tool-heavy runs are CPU the intake would
 * otherwise share. Runs that drain a backlog with no webhooks arriving are never held back, and at a
 * steady rate (the loop not saturated) nothing changes.
 */
export function createFloodGate(options: FloodGateOptions = {}) {
  const utilization = options.utilization ?? ((previous?: EventLoopUtilization) => performance.eventLoopUtilization(previous));
  const now = options.now ?? (() => performance.now());
  let windowStart = utilization();
  let arrivals = 0;
  let saturated = false;
  let lastStartAt = -Infinity;
  const bursting = options.bursting ?? (() => false);

  const judge = (): boolean => {
    const spent = utilization(windowStart);
    if (spent.idle + spent.active >= WINDOW_MS) {
      saturated = arrivals > 0 && spent.utilization > SATURATED;
      windowStart = utilization();
      arrivals = 0;
    }
    // The loop's verdict holds for a window; a burst counts while it lasts (it ends within RETRY_MS of its last turn).
    return saturated || bursting();
  };

  return {
    /** A webhook was accepted. */
    arrival(): void {
      arrivals += 1;
    },
    /** Whether a run may start now. */
    mayStartRun(): boolean {
      return !judge() || now() - lastStartAt >= WINDOW_MS;
    },
    /** Whether webhooks are flooding in now (runs then start one at a time). */
    flooded: (): boolean => judge(),
    /** A run started. */
    started(): void {
      lastStartAt = now();
    },
    /** How long to wait before asking again after a refusal. */
    retryInMs: RETRY_MS,
  };
}

export type FloodGate = ReturnType<typeof createFloodGate>;
