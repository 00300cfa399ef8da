import { randomUUID } from 'node:crypto';
import type { ControlEvent } from './protocol.js';

export const DEFAULT_JOURNAL_CAPACITY = 10_000;

export interface EventJournalOptions {
  /** Most events kept for resuming subscribers. Default 10,000. */
  capacity?: number;
  /** Identifies this gateway start; a cursor from another epoch never resumes. Default: a random UUID. */
  epoch?: string;
  now?: () => number;
  /**
   * `always` (default): every event is kept. `once-listened`: events are numbered from the start but
   * kept only from the first listener on. Until someone subscribes, no client can hold a cursor to
   * resume from, so a headless gateway nobody attached to keeps nothing (under a webhook flood the
   * ring held about 10 MB of run results and log lines that nothing would ever read).
   */
  retain?: 'always' | 'once-listened';
}

export type JournalListener = (event: ControlEvent) => void;

export interface EventJournal {
  readonly epoch: string;
  /** The seq of the last appended event (0 before the first). */
  readonly seq: number;
  /** Numbers the event (1, 2, 3, ...), keeps it in the ring and hands it to every listener, in order. */
  append<T>(type: string, data: T): ControlEvent<T>;
  /**
   * The events after `seq`, oldest first, or `undefined` when they cannot be replayed: `seq` is
   * older than the ring, newer than the journal, or `epoch` (when given) is another gateway start's.
   */
  since(seq: number, epoch?: string): ControlEvent[] | undefined;
  /** Returns the function that removes the listener. */
  listen(listener: JournalListener): () => void;
}

/** A bounded ring of numbered events: the control channel's resume point after a reconnect. */
export function createEventJournal(options: EventJournalOptions = {}): EventJournal {
  const capacity = options.capacity ?? DEFAULT_JOURNAL_CAPACITY;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Event journal capacity must be a positive integer, got ${capacity}`);
  const epoch = options.epoch ?? randomUUID();
  const now = options.now ?? Date.now;
  const ring: ControlEvent[] = new Array<ControlEvent>(capacity);
  const listeners = new Set<JournalListener>();
  let last = 0;
  /** The seq of the first event kept: 1, or the next one when the first listener came. */
  let keptFrom = options.retain === 'once-listened' ? Number.POSITIVE_INFINITY : 1;

  return {
    epoch,
    get seq() {
      return last;
    },
    append(type, data) {
      last += 1;
      const event = { seq: last, type, data, atMs: now() };
      if (last >= keptFrom) ring[last % capacity] = event;
      for (const listener of listeners) listener(event);
      return event;
    },
    since(seq, askedEpoch) {
      if (askedEpoch !== undefined && askedEpoch !== epoch) return undefined;
      if (!Number.isInteger(seq) || seq < 0 || seq > last || last - seq > capacity) return undefined;
      if (seq < last && seq + 1 < keptFrom) return undefined; // from before anything was kept
      const events: ControlEvent[] = [];
      for (let next = seq + 1; next <= last; next += 1) events.push(ring[next % capacity]!);
      return events;
    },
    listen(listener) {
      keptFrom = Math.min(keptFrom, last + 1);
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
