import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore, type Store } from '../../source/store/database.js';
import { StoreUnavailableError } from '../../source/store/store-fault.js';
import type { NewDelivery } from '../../source/store/webhook-deliveries.js';
import { createBurstIntake, type BurstAccept } from '../../source/webhooks/burst-intake.js';
import { intakeJournalFile, openIntakeJournal } from '../../source/webhooks/intake-journal.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

const HOUR = 3_600_000;
const cleanups: Array<() => unknown> = [];
afterEach(async () => { for (const cleanup of cleanups.splice(0).reverse()) await cleanup(); });

const turn = () => new Promise((resolve) => setImmediate(resolve));
let counter = 0;
const row = (id = `d-${++counter}`): NewDelivery => ({
  route: 'gh', deliveryId: id, event: 'push', headers: {}, body: Buffer.from(`{"id":"${id}"}`), prompt: `p ${id}`,
  skills: [], target: 'log', targetExtra: {}, receivedAtMs: Date.now(),
});

function setup(existing?: { store: Store; file: string }) {
  let store = existing?.store;
  let file = existing?.file;
  if (!store || !file) {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const opened = openStore(home.stateDb);
    opened.setGrouping(true);
    cleanups.push(() => opened.close());
    store = opened;
    file = intakeJournalFile(home.stateDb);
  }
  const { intake } = sqliteBackends(store);
  let moved = 0;
  const burst = createBurstIntake({ intake: intake!, logger: pino({ level: 'silent' }), dedupWindowMs: HOUR, now: Date.now, onMoved: () => { moved += 1; } });
  const ids = () => (store.db.prepare('SELECT delivery_id AS deliveryId FROM webhook_deliveries ORDER BY id').all() as Array<{ deliveryId: string }>).map((r) => r.deliveryId);
  return { store, file, burst, ids, moves: () => moved };
}

/** Accepts rows in one turn of the event loop (as a burst arrives) and waits for their answers. */
async function inOneTurn(accept: (row: NewDelivery, window?: number) => BurstAccept, rows: NewDelivery[]) {
  const results = rows.map((r) => accept(r, HOUR));
  await Promise.all(results.map((result) => result.committed));
  await turn();
  return results.map((result) => result.kind);
}

describe('the burst intake (SQLite, a real state.db and journal file)', () => {
  it('one accept a turn goes to state.db; after a turn of several, accepts go to the journal, then move into state.db in order once no burst came for 100 ms', async () => {
    const { file, burst, ids } = setup();
    expect(await burst.open(openIntakeJournal(file))).toBe(0);
    cleanups.push(() => burst.stop());

    const steady = row();
    await inOneTurn(burst.accept, [steady]);
    expect(ids()).toEqual([steady.deliveryId]);

    const first = Array.from({ length: 10 }, () => row());
    await inOneTurn(burst.accept, first); // the turn before had one: still state.db
    expect(ids()).toHaveLength(11);
    const second = Array.from({ length: 10 }, () => row());
    expect(await inOneTurn(burst.accept, second)).toEqual(Array(10).fill('accepted'));
    expect(ids()).toHaveLength(11); // answered from the journal
    expect(burst.waiting()).toBe(10);
    expect(fs.statSync(file).size).toBeGreaterThan(0);
    const third = row(); // one alone: still the journal while some wait there (the queue's order)
    await inOneTurn(burst.accept, [third]);
    expect(burst.waiting()).toBe(11);

    await waitUntil(() => burst.waiting() === 0, 5_000, 'the journal moved into state.db');
    expect(ids()).toEqual([steady, ...first, ...second, third].map((r) => r.deliveryId));
    expect(fs.statSync(file).size).toBe(0);
  });

  it('accepts a delivery id once across the journal and state.db', async () => {
    const { file, burst, ids } = setup();
    await burst.open(openIntakeJournal(file));
    cleanups.push(() => burst.stop());
    const stored = row('in-state-db');
    await inOneTurn(burst.accept, [stored]);
    await inOneTurn(burst.accept, Array.from({ length: 6 }, () => row()));
    const waiting = row('in-the-journal');
    expect(await inOneTurn(burst.accept, [waiting, row(), row(), row(), row()])).toEqual(Array(5).fill('accepted'));
    expect(burst.waiting()).toBe(5);
    expect(await inOneTurn(burst.accept, [row('in-state-db'), row('in-the-journal'), row('new-one'), row('new-one')])).toEqual(['duplicate', 'duplicate', 'accepted', 'duplicate']);
    await waitUntil(() => burst.waiting() === 0, 5_000, 'moved');
    expect(ids().filter((id) => id === 'in-state-db' || id === 'in-the-journal' || id === 'new-one')).toEqual(['in-state-db', 'in-the-journal', 'new-one']);
  });

  it('after a crash, the next start moves what the journal holds, once, even what was moved already', async () => {
    const crashed = setup();
    await crashed.burst.open(openIntakeJournal(crashed.file));
    await inOneTurn(crashed.burst.accept, Array.from({ length: 5 }, () => row()));
    const burstRows = Array.from({ length: 8 }, () => row());
    await inOneTurn(crashed.burst.accept, burstRows);
    expect(crashed.burst.waiting()).toBe(8);
    // Three of them moved (the run queue asked for work), then the process died before the rest.
    expect(crashed.burst.feedQueue(3)).toBe(true);
    await crashed.store.committed();
    expect(crashed.ids()).toHaveLength(8);

    const restarted = setup({ store: crashed.store, file: crashed.file });
    expect(await restarted.burst.open(openIntakeJournal(crashed.file))).toBe(5);
    cleanups.push(() => restarted.burst.stop());
    expect(restarted.ids()).toHaveLength(13);
    expect(new Set(restarted.ids()).size).toBe(13);
    expect(restarted.ids().slice(5)).toEqual(burstRows.map((r) => r.deliveryId));
    expect(fs.statSync(crashed.file).size).toBe(0);
    // The restarted intake knows the ids of the window: a resent one is a duplicate.
    expect(await inOneTurn(restarted.burst.accept, [row(burstRows[7]!.deliveryId)])).toEqual(['duplicate']);
  });

  it('state.db locked during a burst: the journal keeps what was accepted, refuses (503) once the move has failed, and moves everything once the lock is gone', async () => {
    const { store, file, burst, ids } = setup();
    store.setBusyTimeout(50);
    await burst.open(openIntakeJournal(file));
    cleanups.push(() => burst.stop());
    await inOneTurn(burst.accept, Array.from({ length: 6 }, () => row()));
    const locker = new DatabaseSync(store.file);
    cleanups.push(() => locker.isOpen && locker.close());
    locker.exec('BEGIN IMMEDIATE');
    const accepted = Array.from({ length: 6 }, () => row());
    expect(await inOneTurn(burst.accept, accepted)).toEqual(Array(6).fill('accepted'));
    await waitUntil(() => store.fault() !== undefined, 5_000, 'the move finding state.db locked');
    const refused = burst.accept(row(), HOUR);
    await expect(refused.committed).rejects.toBeInstanceOf(StoreUnavailableError);
    locker.exec('COMMIT');
    locker.close();
    await waitUntil(() => burst.waiting() === 0, 5_000, 'moved after the lock');
    expect(store.fault()).toBeUndefined();
    expect(ids().slice(6)).toEqual(accepted.map((r) => r.deliveryId));
  });

  it('catchUp moves what the journal holds at once (a replay then queues after it)', async () => {
    const { file, burst, ids } = setup();
    await burst.open(openIntakeJournal(file));
    cleanups.push(() => burst.stop());
    await inOneTurn(burst.accept, Array.from({ length: 5 }, () => row()));
    const journaled = Array.from({ length: 600 }, () => row());
    await inOneTurn(burst.accept, journaled);
    expect(burst.waiting()).toBe(600);
    await burst.catchUp();
    expect(burst.waiting()).toBe(0);
    expect(ids().slice(5)).toEqual(journaled.map((r) => r.deliveryId));
  });

  it('stop moves everything into state.db and empties the journal', async () => {
    const { file, burst, ids } = setup();
    await burst.open(openIntakeJournal(file));
    await inOneTurn(burst.accept, Array.from({ length: 5 }, () => row()));
    await inOneTurn(burst.accept, Array.from({ length: 700 }, () => row()));
    expect(burst.waiting()).toBeGreaterThan(0);
    await burst.stop();
    expect(ids()).toHaveLength(705);
    expect(fs.statSync(file).size).toBe(0);
  });
});
