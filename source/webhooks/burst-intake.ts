import type { Logger } from 'pino';
import type { SyncIntake } from '../store/async-domains.js';
import { PROBE_INTERVAL_MS, storeUnavailable } from '../store/fault-gate.js';
import type { AcceptOutcome, NewDelivery } from '../store/webhook-deliveries.js';

/** What an accept answers: accepted or duplicate, and the write its 202 waits for (rejects: 503). */
export interface BurstAccept {
  kind: AcceptOutcome['kind'];
  committed: Promise<void>;
}
import { performance } from 'node:perf_hooks';
import type { IntakeJournal } from './intake-journal.js';
import { createSeenFilter, hashKey } from './seen-filter.js';
import { createWaitingKeys, idempotencyKey } from './waiting-keys.js';

/** Accepts in one event-loop turn that make a burst (at a steady rate a turn holds one). */
const BURST_PER_TURN = 4;
/** How long after the last burst turn the journal's deliveries start moving into state.db. */
const QUIET_MS = 100;
/** How long after its last burst turn a burst counts as going on for the run queue (flood-gate.ts). */
const BURST_GAP_MS = 20;
/** waitingKeys files keys under 30 bits of their hash: a small integer, never a number object. */
const SLOT_MASK = 0x3fffffff;
/** Keys read per turn at start to fill the seen filter. */
const FILL_PER_TURN = 20_000;
/** Deliveries moved from the journal into state.db per event-loop turn (one commit each). */
const MOVE_PER_TURN = 64;

export interface BurstIntakeDeps {
  intake: SyncIntake;
  logger: Logger;
  /** The idempotency window (`idempotency_ttl`). */
  dedupWindowMs: number;
  now: () => number;
  /** Deliveries moved into state.db: the run queue has work. */
  onMoved(): void;
}

/**
 * SQLite mode's intake. At a steady rate every accepted delivery is a row in state.db, committed
 * before its 202 (the first of a turn at once). Under a burst (several webhooks in one event-loop
 * turn) a 202 would cost a state.db insert and its share of a commit, about a third of the
 * listener's time; so while a burst lasts, and until what it brought is in state.db, accepted
 * deliveries are appended to the intake journal (intake-journal.ts: one write a turn) and moved
 * into state.db, in order, once no burst turn has come for 100 ms, or when the run queue runs out
 * of work. The idempotency check asks the seen filter (seen-filter.ts), then, on a "maybe", the
 * deliveries still in the journal and state.db, so a delivery id is accepted once either way.
 *
 * Nothing accepted is lost: the journal is written before the 202 (the same durability as a
 * state.db commit here), moved into state.db before the gateway stops, and at the next start
 * (`recover`) after a crash. A store fault (state.db locked or the disk full) refuses webhooks
 * with 503 in both modes, and a journal write that fails is a store fault of its own.
 * Until moved, a delivery is in the Webhooks pane and the queue depth but not yet in
 * `switchboard webhook list`, which reads state.db.
 */
export function createBurstIntake(deps: BurstIntakeDeps) {
  const { intake } = deps;
  /** Until `open` (and without a journal file at all) every accept goes straight to state.db. */
  let journal = noJournal;
  let journaling = false;
  const seen = createSeenFilter(deps.dedupWindowMs, deps.now);
  let lastBurstAtMs = -Infinity;
  /** Deliveries in the journal (written or about to be) that are not in state.db yet. */
  let waiting = 0;
  /** Where the next move reads, and how far the moves are committed. */
  let moveFrom = 0;
  let movedTo = 0;
  let moveScheduled = false;
  let retryTimer: NodeJS.Timeout | undefined;
  /** The journal write this turn's accepts wait for, as the server sees it (one per turn), and its rows. */
  let turnWrite: { written: Promise<void>; answer: Promise<void> } | undefined;
  let turnRows: NewDelivery[] = [];
  let turnOffsets: number[] = [];
  let stopped = false;
  /** Idempotency keys (route, delivery id) of journal deliveries not yet in state.db. */
  const waitingKeys = createWaitingKeys((offset) => {
    if (offset >= journal.end) {
      const index = turnOffsets.indexOf(offset); // still in this turn's write
      return index < 0 ? undefined : keyOf(turnRows[index]!);
    }
    const [row] = journal.read(offset, 1).rows;
    return row ? keyOf(row) : undefined;
  });
  /** The hash waitingKeys files a key under (a small integer: no number object per key). */
  const slotOf = (row: Pick<NewDelivery, 'route' | 'deliveryId'>) => hashKey(row.route, row.deliveryId)[0] & SLOT_MASK;

  // Accepts per event-loop turn: many in one turn is what a burst looks like (one at a time is a
  // steady rate, however busy the loop is with other work).
  let acceptsThisTurn = 0;
  let acceptsLastTurn = 0;
  const endTurn = () => {
    acceptsLastTurn = acceptsThisTurn;
    acceptsThisTurn = 0;
    if (acceptsLastTurn >= BURST_PER_TURN) lastBurstAtMs = performance.now();
  };
  /**
   * At a steady rate, the commit a 202 waits for: the turn's first accept commits at once (its 202
   * does not wait for the rest of the turn) unless the last turn accepted several.
   */
  const commitOf = (): Promise<void> => {
    if (acceptsThisTurn > 1) return intake.committed();
    return acceptsLastTurn <= 1 ? intake.acceptCommitted() : intake.committed();
  };

  const keyOf = (row: Pick<NewDelivery, 'route' | 'deliveryId'>) => idempotencyKey(row.route, row.deliveryId);

  const toJournal = (row: NewDelivery, dedupWindowMs: number | undefined): BurstAccept => {
    const fault = intake.fault();
    if (fault) return { kind: 'accepted', committed: Promise.reject(storeUnavailable(fault)) };
    const offset = journal.tail;
    if (dedupWindowMs !== undefined) {
      const [a, b] = hashKey(row.route, row.deliveryId);
      // The filter holds every key of the window (filled at `open`, before the journal is used).
      if (seen.checkAndAdd(a, b) && (waitingKeys.has(row.route, row.deliveryId, a & SLOT_MASK) || intake.seenSince(row.route, row.deliveryId, row.receivedAtMs - dedupWindowMs))) {
        return { kind: 'duplicate', committed: turnWrite?.answer ?? Promise.resolve() };
      }
      waitingKeys.add(row.route, row.deliveryId, a & SLOT_MASK, offset);
    }
    waiting += 1;
    const written = journal.append(row);
    if (turnWrite?.written !== written) {
      const rows: NewDelivery[] = [];
      const offsets: number[] = [];
      const answer = written.then(() => scheduleMove(), (error: unknown) => {
        // Not written: not accepted (503), and nothing of it waits.
        waiting -= rows.length;
        rows.forEach((lost, index) => forget(lost, offsets[index]!));
        throw intake.classifyFault(error);
      });
      turnWrite = { written, answer };
      turnRows = rows;
      turnOffsets = offsets;
    }
    turnRows.push(row);
    turnOffsets.push(offset);
    return { kind: 'accepted', committed: turnWrite.answer };
  };

  const forget = (row: NewDelivery, offset: number) => {
    waitingKeys.delete(row.route, row.deliveryId, slotOf(row), offset);
  };

  /** Moves up to `max` journal deliveries into state.db (one commit); false when the store refused. */
  const moveSome = (max: number): boolean => {
    const { rows, offsets, next } = journal.read(moveFrom, max);
    if (rows.length === 0) return true;
    try {
      for (const row of rows) intake.accept(row, undefined);
    } catch (error) {
      deps.logger.debug({ err: error }, 'Moving journal deliveries into state.db failed; trying again shortly');
      return false;
    }
    moveFrom = next;
    intake.committed().then(() => {
      movedTo = Math.max(movedTo, next);
      waiting -= rows.length;
      rows.forEach((row, index) => forget(row, offsets[index]!));
      // Everything written is in state.db and nothing waits to be written: the journal starts again from empty.
      if (movedTo === journal.end && moveFrom === movedTo && journal.tail === journal.end) {
        journal.truncate();
        moveFrom = movedTo = 0;
      }
      deps.onMoved();
    }, () => {
      moveFrom = movedTo; // rolled back: moved again from where the last commit left off
      retryLater();
    });
    return true;
  };

  const retryLater = () => {
    retryTimer ??= setTimeout(() => {
      retryTimer = undefined;
      scheduleMove();
    }, PROBE_INTERVAL_MS);
  };

  /** Moves a turn's worth each turn while the loop has room, and checks again later while it has none. */
  function scheduleMove(): void {
    if (moveScheduled || stopped) return;
    moveScheduled = true;
    setImmediate(() => {
      moveScheduled = false;
      if (moveFrom >= journal.end || stopped) return;
      if (performance.now() - lastBurstAtMs < QUIET_MS) return retryLater();
      if (!moveSome(MOVE_PER_TURN)) return retryLater();
      if (moveFrom < journal.end) scheduleMove();
    });
  }

  /** Fills the seen filter with the keys of the window, newest first, a chunk a turn. */
  const fillSeen = async (): Promise<void> => {
    const sinceMs = deps.now() - deps.dedupWindowMs;
    for (let before = Number.MAX_SAFE_INTEGER; ;) {
      const rows = intake.keysBefore(before, FILL_PER_TURN);
      for (const row of rows) if (row.receivedAtMs > sinceMs) seen.add(row.route, row.deliveryId);
      if (rows.length < FILL_PER_TURN || rows.at(-1)!.receivedAtMs <= sinceMs) break;
      before = rows.at(-1)!.id;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  return {
    /** Accepts one delivery: into state.db at a steady rate, into the journal while a burst lasts. */
    accept(row: NewDelivery, dedupWindowMs: number | undefined): BurstAccept {
      acceptsThisTurn += 1;
      if (acceptsThisTurn === 1) setImmediate(endTurn);
      if (journaling && (waiting > 0 || acceptsLastTurn >= BURST_PER_TURN)) return toJournal(row, dedupWindowMs);
      const { kind } = intake.accept(row, dedupWindowMs);
      if (dedupWindowMs !== undefined && kind === 'accepted') seen.add(row.route, row.deliveryId);
      return { kind, committed: commitOf() };
    },
    /** Whether a burst turn came within the last 20 ms (the run queue then holds runs back: flood-gate.ts). */
    bursting: (): boolean => performance.now() - lastBurstAtMs < BURST_GAP_MS,
    /** Deliveries accepted into the journal and not yet in state.db (counted as queued). */
    waiting: (): number => waiting,
    /** The run queue found nothing queued: give it some of the journal's deliveries now. */
    feedQueue(count: number): boolean {
      if (moveFrom >= journal.end) return false;
      return moveSome(count);
    },
    /**
     * Moves into state.db what the journal holds now, before something that must come after it in
     * the queue (a replay queued by the operator). Stops early when the store refuses writes.
     */
    async catchUp(): Promise<void> {
      await turnWrite?.answer.catch(() => {});
      const until = journal.end;
      while (moveFrom < Math.min(until, journal.end)) {
        if (!moveSome(500)) return;
        await intake.committed();
      }
    },
    /**
     * At start, before the listener opens: takes the journal, moves what a stopped or crashed
     * gateway left in it into state.db (skipping what it had moved already), then empties it.
     * Returns how many deliveries it moved.
     */
    async open(opened: IntakeJournal): Promise<number> {
      journal = opened;
      let moved = 0;
      for (let at = 0; at < journal.end;) {
        const { rows, next } = journal.read(at, 500);
        if (next === at) break;
        for (const row of rows) {
          if (intake.isRecorded(row)) continue;
          intake.accept(row, undefined);
          moved += 1;
        }
        await intake.committed();
        at = next;
      }
      journal.truncate();
      await fillSeen();
      journaling = true;
      return moved;
    },
    /** At stop, after the listener closed: everything in the journal into state.db, then the journal closed. */
    async stop(): Promise<void> {
      if (!journaling) return;
      stopped = true;
      journaling = false;
      clearTimeout(retryTimer);
      await turnWrite?.answer.catch(() => {});
      try {
        while (moveFrom < journal.end) {
          if (!moveSome(500)) break; // the store refuses: the next start moves them
          await intake.committed();
        }
        await intake.committed();
      } catch (error) {
        deps.logger.warn({ err: error }, 'Some webhooks accepted during a burst stay in the intake journal; the next start moves them into state.db');
      }
      journal.close();
    },
  };
}

/** A platform without a journal: nothing is ever in it. */
const noJournal: IntakeJournal = {
  append: () => Promise.reject(new Error('no intake journal')),
  read: (offset) => ({ rows: [], offsets: [], next: offset }),
  end: 0,
  tail: 0,
  truncate: () => {},
  close: () => {},
};

