/** Failed connects in a row before a server is `failed` (README, MCP client, "States"). */
export const MAX_CONNECT_ATTEMPTS = 5;

/**
 * Reconnect pacing: `minMs` doubling to `maxMs` with jitter; `failed` after `failuresBeforeFailed`
 * attempts in a row, then one attempt every `failedRetryMs`. A connection counts as healthy (and
 * clears the count) only after staying up `stableMs`: a server that crashes right after its
 * handshake is a failed attempt, not a recovery.
 */
export const DEFAULT_BACKOFF = {
  minMs: 1000,
  maxMs: 60_000,
  failuresBeforeFailed: MAX_CONNECT_ATTEMPTS,
  failedRetryMs: 5 * 60_000,
  stableMs: 60_000,
};

export type BackoffSettings = typeof DEFAULT_BACKOFF;

export interface BackoffStep {
  /** Failed attempts in a row, this one included. */
  attempt: number;
  /** true: the attempts are used up; the next one comes after `failedRetryMs`. */
  exhausted: boolean;
  delayMs: number;
}

/** One server's failure count and the delay before its next connect attempt. */
export function createBackoff(settings: BackoffSettings, random: () => number = Math.random) {
  let failures = 0;
  let connectedAtMs: number | undefined;
  return {
    connected(atMs: number): void {
      connectedAtMs = atMs;
    },
    /** A failed attempt or a lost connection at `atMs`: what to do next. */
    failed(atMs: number): BackoffStep {
      if (connectedAtMs !== undefined && atMs - connectedAtMs >= settings.stableMs) failures = 0;
      connectedAtMs = undefined;
      failures += 1;
      if (failures >= settings.failuresBeforeFailed) return { attempt: failures, exhausted: true, delayMs: settings.failedRetryMs };
      const base = Math.min(settings.maxMs, settings.minMs * 2 ** (failures - 1));
      return { attempt: failures, exhausted: false, delayMs: Math.round(base / 2 + (random() * base) / 2) };
    },
  };
}
