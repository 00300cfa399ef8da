export interface LogLine {
  atMs: number;
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  message: string;
}

/**
 * Marks an info line that exists once per webhook delivery (the request, its run, its delivery):
 * gateway.log keeps it, but the console's Logs pane (and the event stream to attached consoles)
 * leaves it out, since the Webhooks pane shows each delivery as a row. At 500 webhooks a second
 * these lines were half of all console events.
 */
export const PER_DELIVERY = { scope: 'delivery' } as const;

const levels: Record<number, LogLine['level']> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * A pino destination that keeps the last `capacity` lines in memory for the console's log pane
 * (in console mode nothing but Ink may write to the terminal).
 */
export function createLogRing(capacity = 2000) {
  const lines: LogLine[] = [];
  const listeners = new Set<(line: LogLine) => void>();
  const add = (line: LogLine) => {
    lines.push(line);
    listeners.forEach((listener) => listener(line));
  };
  // A plain destination, not a Writable: pino calls write() once per line, and the stream machinery
  // around it cost more than the line.
  const stream = {
    write(chunk: string | Buffer) {
      for (const text of String(chunk).split('\n')) {
        if (text.trim() === '') continue;
        try {
          const entry = JSON.parse(text) as { time?: string; level?: number; msg?: string; scope?: string };
          if (entry.scope === PER_DELIVERY.scope && (entry.level ?? 30) <= 30) continue;
          add({ atMs: entry.time ? Date.parse(entry.time) : Date.now(), level: levels[entry.level ?? 30] ?? 'info', message: entry.msg ?? '' });
        } catch {
          add({ atMs: Date.now(), level: 'info', message: text });
        }
      }
      // Trimmed in steps of a quarter: one splice per line shifted the whole ring, 2,500 times a second under a burst.
      if (lines.length > capacity + capacity / 4) lines.splice(0, lines.length - capacity);
    },
  };
  return {
    stream,
    /** A copy of the last `capacity` lines, oldest first. */
    lines: (): LogLine[] => lines.slice(-capacity),
    /** Called with each line as it is written (the gateway puts them in its event journal). */
    onLine(listener: (line: LogLine) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type LogRing = ReturnType<typeof createLogRing>;
