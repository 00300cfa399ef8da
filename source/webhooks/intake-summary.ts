import type { Logger } from 'pino';

/** How often accepted and duplicate requests are summed up at info level. */
export const SUMMARY_INTERVAL_MS = 10_000;

interface Counts {
  accepted: number;
  duplicate: number;
}

/**
 * Accepted and duplicate requests are logged one by one at debug only: at thousands a second the
 * info line per request (serialised, masked, then written to three destinations) cost a fifth of
 * the listener. At info, each route gets one line per interval instead:
 * `Webhooks on route gh in the last 10 s: 1234 accepted, 2 duplicate`. The timer runs only while
 * there is something to report; close() writes out what is counted so far.
 */
export function createIntakeSummary(deps: { logger: Logger; now: () => number; intervalMs?: number }) {
  const intervalMs = deps.intervalMs ?? SUMMARY_INTERVAL_MS;
  let counts = new Map<string, Counts>();
  let since = 0;
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    timer = undefined;
    if (counts.size === 0) return;
    const seconds = Math.max(1, Math.round((deps.now() - since) / 1000));
    const done = counts;
    counts = new Map();
    for (const [route, { accepted, duplicate }] of done) {
      const parts = [`${accepted} accepted`, ...(duplicate > 0 ? [`${duplicate} duplicate`] : [])];
      deps.logger.info({ route, accepted, duplicate, seconds }, `Webhooks on route ${route} in the last ${seconds} s: ${parts.join(', ')}`);
    }
  };

  return {
    count(route: string, outcome: 'accepted' | 'duplicate'): void {
      let entry = counts.get(route);
      if (!entry) {
        entry = { accepted: 0, duplicate: 0 };
        counts.set(route, entry);
      }
      entry[outcome] += 1;
      if (!timer) {
        since = deps.now();
        timer = setTimeout(flush, intervalMs);
        timer.unref();
      }
    },
    /** Writes out the counts so far (the listener is closing). */
    close(): void {
      if (timer) clearTimeout(timer);
      flush();
    },
  };
}

export type IntakeSummary = ReturnType<typeof createIntakeSummary>;
