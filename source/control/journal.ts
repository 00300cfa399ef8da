import { randomUUID } from 'node:crypto';
import type { ControlEvent } from './protocol.js';

export const DEFAULT_JOURNAL_CAPACITY = 10_000;
/** About this many bytes of event text at most, whatever the count: a run's output can be kilobytes. */
export const DEFAULT_JOURNAL_MAX_BYTES = 8 * 1024 * 1024;

export interface EventJournalOptions {
  /** Most events kept for resuming subscribers. Default 10,000. */
  capacity?: number;
  /**
   * Most text kept (the strings of each event's data, counted to two levels deep): the oldest
   * events go first past it. A client that asks to resume from an event no longer kept gets a
   * snapshot instead, as after a longer absence. Default 8 MB: under a flood with a console
   * attached, 10,000 events with their runs' outputs held about 10 MB and more.
   */
  maxBytes?: number;
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
  const maxBytes = options.maxBytes ?? DEFAULT_JOURNAL_MAX_BYTES;
  const ring: ControlEvent[] = new Array<ControlEvent>(capacity);
  const sizes = new Float64Array(capacity);
  const listeners = new Set<JournalListener>();
  let last = 0;
  /** The seq of the first event kept: 1, or the next one when the first listener came, or past what the byte budget let go. */
  let keptFrom = options.retain === 'once-listened' ? Number.POSITIVE_INFINITY : 1;
  let keptBytes = 0;

  /** Keeps `event` in the ring; lets the oldest go while the ring is over its byte budget. */
  const keep = (event: ControlEvent) => {
    const slot = event.seq % capacity;
    if (event.seq - capacity >= keptFrom) keptBytes -= sizes[slot]!; // the event it overwrites
    ring[slot] = event;
    sizes[slot] = sizeOf(event.data);
    keptBytes += sizes[slot]!;
    keptFrom = Math.max(keptFrom, event.seq - capacity + 1);
    while (keptBytes > maxBytes && keptFrom < event.seq) {
      const oldest = keptFrom % capacity;
      keptBytes -= sizes[oldest]!;
      ring[oldest] = undefined as unknown as ControlEvent; // its data can be collected
      keptFrom += 1;
    }
  };

  return {
    epoch,
    get seq() {
      return last;
    },
    append(type, data) {
      last += 1;
      const event = { seq: last, type, data, atMs: now() };
      if (last >= keptFrom) keep(event);
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

/** About the bytes of an event's text: its strings, counted to two levels deep, plus a little per event. */
function sizeOf(data: unknown): number {
  let bytes = 64;
  const add = (value: unknown, depth: number) => {
    if (typeof value === 'string') bytes += value.length;
    else if (depth < 2 && value !== null && typeof value === 'object') for (const inner of Object.values(value)) add(inner, depth + 1);
    else bytes += 8;
  };
  add(data, 0);
  return bytes;
}
