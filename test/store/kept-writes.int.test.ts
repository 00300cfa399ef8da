import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../source/store/audit.js';
import { GATEWAY_BUSY_TIMEOUT_MS, openStore } from '../../source/store/database.js';
import { StoreUnavailableError, type StoreFault } from '../../source/store/store-fault.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0).reverse()) close();
});

/** A gateway-like store (grouping, 200 ms busy timeout) and a second connection standing for another process. */
function setup() {
  const home = tempHome();
  const store = openStore(home.stateDb);
  store.setBusyTimeout(GATEWAY_BUSY_TIMEOUT_MS);
  store.setGrouping(true);
  const other = new DatabaseSync(home.stateDb);
  closers.push(() => store.close(), () => other.close());
  const insert = store.db.prepare("INSERT INTO audit (at_ms, source, kind) VALUES (0, 'test', ?)");
  const kinds = () => other.prepare('SELECT kind FROM audit ORDER BY id').all().map((row) => row.kind);
  const changes: Array<StoreFault | undefined> = [];
  store.onFaultChange((fault) => changes.push(fault));
  return { store, other, insert, kinds, changes, audit: createAuditLog(store) };
}

describe('store faults and kept writes (issue #18, items 1 and 3)', () => {
  it('a write under another process\'s lock fails within the busy timeout, and later ones fail at once until a probe', () => {
    const { store, other, insert, changes } = setup();
    other.exec('BEGIN IMMEDIATE');
    let started = performance.now();
    expect(() => store.write(() => insert.run('a'))).toThrow(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(GATEWAY_BUSY_TIMEOUT_MS + 300);
    started = performance.now();
    for (let n = 0; n < 100; n++) expect(() => store.write(() => insert.run('b'))).toThrow(/state.db is locked by another process/);
    expect(performance.now() - started).toBeLessThan(50); // no busy wait per write
    expect(store.fault()).toMatchObject({ kind: 'locked' });
    expect(changes).toHaveLength(1);
    other.exec('COMMIT');
  });

  it('kept writes wait out the lock and commit in order once it is released; the fault ends', async () => {
    const { store, other, insert, kinds, changes } = setup();
    other.exec('BEGIN IMMEDIATE');
    const written = ['one', 'two', 'three'].map((kind) => store.keep(() => insert.run(kind)));
    expect(store.keptPending()).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 600)); // a few probes fail meanwhile
    expect(kinds()).toEqual([]);
    other.exec('COMMIT');
    await Promise.all(written);
    expect(kinds()).toEqual(['one', 'two', 'three']);
    expect(store.keptPending()).toBe(0);
    expect(store.fault()).toBeUndefined();
    expect(changes.map((fault) => fault?.kind)).toEqual(['locked', undefined]);
  });

  it('a kept write that can never succeed is rejected, not retried forever', async () => {
    const { store } = setup();
    const broken = store.db.prepare("INSERT INTO audit (at_ms, source, kind) VALUES (NULL, 'test', 'x')");
    await expect(store.keep(() => broken.run())).rejects.toThrow(/NOT NULL/);
    expect(store.keptPending()).toBe(0);
  });

  it('audit records never throw on a fault: they are kept', async () => {
    const { store, other, audit } = setup();
    other.exec('BEGIN IMMEDIATE');
    expect(() => audit.record('gateway', 'gateway.stopped', 'test')).not.toThrow();
    other.exec('COMMIT');
    await waitUntil(() => store.keptPending() === 0 && audit.recent().length === 1, 5_000, 'the audit line written');
  });
});
