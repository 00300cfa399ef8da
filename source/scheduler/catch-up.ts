import type { CatchUpPolicy } from '../store/jobs.js';
import { nextRunAfter, previousRunAtOrBefore, type Schedule } from './schedule.js';

const MIN_WINDOW_MS = 2 * 60_000;
const MAX_WINDOW_MS = 2 * 3_600_000;

export interface CatchUpInput {
  schedule: Schedule;
  policy: CatchUpPolicy;
  /** The stored next run: the first fire the stopped gateway did not make. */
  nextRunAtMs: number;
  nowMs: number;
  timezone: string;
  anchorMs: number;
}

export type CatchUpDecision =
  | { action: 'none' }
  | { action: 'run' | 'skip'; missedAtMs: number; reason: string; nextRunAtMs: number | null };

/** How late a missed fire may still run: half its period, clamped to 2 minutes..2 hours. */
export function catchUpWindowMs(schedule: Schedule, missedAtMs: number, timezone: string, anchorMs: number): number {
  const following = nextRunAfter(schedule, missedAtMs, timezone, anchorMs);
  const periodMs = following === null ? MAX_WINDOW_MS * 2 : following - missedAtMs;
  return Math.min(MAX_WINDOW_MS, Math.max(MIN_WINDOW_MS, Math.floor(periodMs / 2)));
}

/**
 * At gateway start, for a job whose next run passed while no gateway ran. `once` runs the latest
 * missed fire if it is recent enough; `skip` (or a fire too old) moves on to the next slot. Either
 * way the caller records the decision in the run history.
 */
export function decideCatchUp(input: CatchUpInput): CatchUpDecision {
  if (input.nextRunAtMs > input.nowMs) return { action: 'none' };
  const missedAtMs = previousRunAtOrBefore(input.schedule, input.nowMs, input.timezone, input.anchorMs, input.nextRunAtMs) ?? input.nextRunAtMs;
  const nextRunAtMs = nextRunAfter(input.schedule, input.nowMs, input.timezone, input.anchorMs);
  const lateMs = input.nowMs - missedAtMs;
  const missed = `missed the fire of ${new Date(missedAtMs).toISOString()} while no gateway was running`;
  if (input.policy === 'skip') return { action: 'skip', missedAtMs, nextRunAtMs, reason: `${missed}; catch_up is skip` };
  const windowMs = catchUpWindowMs(input.schedule, missedAtMs, input.timezone, input.anchorMs);
  if (lateMs <= windowMs) return { action: 'run', missedAtMs, nextRunAtMs, reason: `${missed}; running it once now (catch_up once)` };
  return {
    action: 'skip', missedAtMs, nextRunAtMs,
    reason: `${missed}; ${Math.round(lateMs / 60_000)} min late is beyond the catch-up window of ${Math.round(windowMs / 60_000)} min, waiting for the next slot`,
  };
}
