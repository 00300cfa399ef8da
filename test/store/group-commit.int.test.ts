import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../source/store/audit.js';
import { openStore } from '../../source/store/database.js';
import { tempHome } from '../helpers/temp-home.js';

/** The store's group commit, seen from a second connection (what another process would read). */
function setup() {
  const home = tempHome();
  const store = openStore(home.stateDb);
  const audit = createAuditLog(store);
  const other = new DatabaseSync(home.stateDb, { readOnly: true });
  const committedKinds = () => other.prepare('SELECT kind FROM audit ORDER BY id').all().map((row) => row.kind);
  const record = (kind: string) => store.write(() => audit.record('test', kind));
  return { store, record, committedKinds, close: () => { other.close(); store.close(); } };
}

describe('group commit', () => {
  it('without grouping, each write is committed when it returns', () => {
    const { record, committedKinds, close } = setup();
    record('a');
    expect(committedKinds()).toEqual(['a']);
    close();
  });

  it('with grouping, the writes of one turn share one commit, and committed() settles after it', async () => {
    const { store, record, committedKinds, close } = setup();
    store.setGrouping(true);
    record('a');
    record('b');
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM audit').get()!.n).toBe(2); // the writer sees its own writes
    expect(committedKinds()).toEqual([]);
    await store.committed();
    expect(committedKinds()).toEqual(['a', 'b']);
    close();
  });

  it('a failing write undoes only itself; the rest of the group commits', async () => {
    const { store, record, committedKinds, close } = setup();
    store.setGrouping(true);
    record('kept');
    const insert = store.db.prepare("INSERT INTO audit (at_ms, source, kind) VALUES (?, 'test', ?)");
    expect(() => store.write(() => insert.run(null, 'undone'))).toThrow(/NOT NULL/);
    record('also kept');
    await store.committed();
    expect(committedKinds()).toEqual(['kept', 'also kept']);
    close();
  });

  it('transaction() inside an open group commits the group with it, so it is durable when it returns', () => {
    const { store, record, committedKinds, close } = setup();
    store.setGrouping(true);
    record('grouped');
    store.transaction(() => record('in a transaction'));
    expect(committedKinds()).toEqual(['grouped', 'in a transaction']);
    close();
  });

  it('turning grouping off, or closing the store, commits what is open', () => {
    const first = setup();
    first.store.setGrouping(true);
    first.record('a');
    first.store.setGrouping(false);
    expect(first.committedKinds()).toEqual(['a']);
    first.close();

    const home = tempHome();
    const store = openStore(home.stateDb);
    store.setGrouping(true);
    store.write(() => createAuditLog(store).record('test', 'b'));
    store.close();
    const reopened = openStore(home.stateDb);
    expect(createAuditLog(reopened).recent().map((entry) => entry.kind)).toEqual(['b']);
    reopened.close();
  });

  it('a commit that fails rejects committed() and is reported, and the store keeps working', async () => {
    const { store, record, committedKinds, close } = setup();
    const reported: unknown[] = [];
    store.setGrouping(true, (error) => reported.push(error));
    store.db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)');
    store.write(() => store.db.exec('INSERT INTO child (parent_id) VALUES (42)')); // checked only at COMMIT
    await expect(store.committed()).rejects.toThrow(/FOREIGN KEY/);
    expect(reported).toHaveLength(1);
    record('after');
    await store.committed();
    expect(committedKinds()).toEqual(['after']);
    close();
  });

  it('commitSoon() commits the first waiting writer of a turn at once; later ones of that turn share the turn-end commit', async () => {
    const { store, record, committedKinds, close } = setup();
    store.setGrouping(true);
    record('run write');
    record('first 202');
    const first = store.commitSoon();
    expect(committedKinds()).toEqual(['run write', 'first 202']); // committed before commitSoon() returned
    record('second 202');
    const second = store.commitSoon();
    expect(committedKinds()).toEqual(['run write', 'first 202']); // grouped: this turn already committed at once
    await Promise.all([first, second]);
    expect(committedKinds()).toEqual(['run write', 'first 202', 'second 202']);
    // A new turn: its first waiting writer commits at once again.
    await new Promise((resolve) => setImmediate(resolve));
    record('next turn');
    void store.commitSoon();
    expect(committedKinds()).toContain('next turn');
    close();
  });
});
