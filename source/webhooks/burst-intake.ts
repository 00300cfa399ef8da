import type { Logger } from 'pino';
import type { SyncIntake } from '../store/async-domains.js';
import { PROBE_INTERVAL_MS, storeUnavailable } from '../store/fault-gate.js';
import type { AcceptOutcome, NewDelivery } from '../store/webhook-deliveries.js';
import { createFloodGate, type FloodGateOptions } from './flood-gate.js';
import type { IntakeJournal } from './intake-journal.js';

/** Accepts in one event-loop turn that, with the loop saturated, make a burst. */
const BURST_PER_TURN = 4;
/** Deliveries moved from the journal into state.db per event-loop turn (one commit each). */
const MOVE_PER_TURN = 64;

export interface BurstIntakeDeps {
  intake: SyncIntake;
  logger: Logger;
  /** Deliveries moved into state.db: the run queue has work. */
  onMoved(): void;
  /** Tests judge the flood by hand. */
  flood?: FloodGateOptions;
}

/**
 * SQLite mode's intake. At a steady rate every accepted delivery is a row in state.db, committed
 * before its 202 (the first of a turn at once). Under a burst (several webhooks a turn while the
 * event loop is saturated, as the run queue's flood gate judges it) a 202 costs a state.db insert and
 * its share of a commit, about a third of the listener's time; so while a burst lasts, and until
 * what it brought is in state.db, accepted deliveries are appended to the intake journal
 * (intake-journal.ts: one write a turn) and moved into state.db, in order, when the loop has room
 * again or when the run queue runs out of work. The idempotency check reads state.db and the
 * deliveries still in the journal, so a delivery id is accepted once either way.
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
  const gate = createFloodGate(deps.flood);
  /** Idempotency keys (route, delivery id) of journal deliveries not yet in state.db. */
  const waitingKeys = new Set<string>();
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
  let stopped = false;

  // Accepts per event-loop turn: many in one turn is what a burst looks like (one at a time is a
  // steady rate, however busy the loop is with other work).
  let acceptsThisTurn = 0;
  let acceptsLastTurn = 0;
  const endTurn = () => {
    acceptsLastTurn = acceptsThisTurn;
    acceptsThisTurn = 0;
  };
  /**
   * At a steady rate, the commit a 202 waits for: the turn's first accept commits at once (its 202
   * does not wait for the rest of the turn) unless the last turn accepted several.
   */
  const commitOf = (): Promise<void> => {
    if (acceptsThisTurn > 1) return intake.committed();
    return acceptsLastTurn <= 1 ? intake.acceptCommitted() : intake.committed();
  };

  const keyOf = (row: NewDelivery) => `${row.route}\n${row.deliveryId}`;

  const toJournal = (row: NewDelivery, dedupWindowMs: number | undefined): { outcome: AcceptOutcome; committed: Promise<void> } => {
    const fault = intake.fault();
    if (fault) return { outcome: { kind: 'accepted', seq: 0 }, committed: Promise.reject(storeUnavailable(fault)) };
    if (dedupWindowMs !== undefined) {
      const key = keyOf(row);
      if (waitingKeys.has(key) || intake.seenSince(row.route, row.deliveryId, row.receivedAtMs - dedupWindowMs)) {
        return { outcome: { kind: 'duplicate' }, committed: turnWrite?.answer ?? Promise.resolve() };
      }
      waitingKeys.add(key);
    }
    waiting += 1;
    const written = journal.append(row);
    if (turnWrite?.written !== written) {
      const rows: NewDelivery[] = [];
      const answer = written.then(() => scheduleMove(), (error: unknown) => {
        // Not written: not accepted (503), and nothing of it waits.
        waiting -= rows.length;
        for (const lost of rows) waitingKeys.delete(keyOf(lost));
        throw intake.classifyFault(error);
      });
      turnWrite = { written, answer };
      turnRows = rows;
    }
    turnRows.push(row);
    return { outcome: { kind: 'accepted', seq: 0 }, committed: turnWrite.answer };
  };

  /** Moves up to `max` journal deliveries into state.db (one commit); false when the store refused. */
  const moveSome = (max: number): boolean => {
    const { rows, next } = journal.read(moveFrom, max);
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
      for (const row of rows) waitingKeys.delete(keyOf(row));
      // Everything written is in state.db: the journal starts again from empty.
      if (movedTo === journal.end && moveFrom === movedTo) {
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
      if (gate.flooded()) return retryLater();
      if (!moveSome(MOVE_PER_TURN)) return retryLater();
      if (moveFrom < journal.end) scheduleMove();
    });
  }

  return {
    /** Accepts one delivery: into state.db at a steady rate, into the journal while a burst lasts. */
    accept(row: NewDelivery, dedupWindowMs: number | undefined): { outcome: AcceptOutcome; committed: Promise<void> } {
      gate.arrival();
      acceptsThisTurn += 1;
      if (acceptsThisTurn === 1) setImmediate(endTurn);
      if (journaling && (waiting > 0 || (acceptsLastTurn >= BURST_PER_TURN && gate.flooded()))) return toJournal(row, dedupWindowMs);
      return { outcome: intake.accept(row, dedupWindowMs), committed: commitOf() };
    },
    /** Deliveries accepted into the journal and not yet in state.db (counted as queued). */
    waiting: (): number => waiting,
    /** The run queue found nothing queued: give it some of the journal's deliveries now. */
    feedQueue(count: number): boolean {
      if (moveFrom >= journal.end) return false;
      return moveSome(count);
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
  read: (offset) => ({ rows: [], next: offset }),
  end: 0,
  truncate: () => {},
  close: () => {},
};

export type BurstIntake = ReturnType<typeof createBurstIntake>;
