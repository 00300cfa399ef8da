import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../source/store/audit.js';
import { startCheckpointer } from '../../source/store/checkpointer.js';
import { openStore } from '../../source/store/database.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

describe('WAL checkpoints off the event loop', () => {
  it('turns commit-time checkpoints off, checkpoints from its thread, and gives them back when stopped', async () => {
    const store = openStore(tempHome().stateDb);
    const audit = createAuditLog(store);
    const autocheckpoint = () => Object.values(store.db.prepare('PRAGMA wal_autocheckpoint').get()!)[0];
    const errors: string[] = [];
    const checkpointer = startCheckpointer(store, { intervalMs: 10, onError: (message) => errors.push(message) });
    expect(autocheckpoint()).toBe(0);

    // Nothing on this connection checkpoints now: frames are copied back to the database (nBackfill
    // in the WAL index, read from the -shm file without touching the database) only by the thread;
    // after that the next commit starts the WAL over, so it holds fewer frames than commits made.
    let commits = 0;
    const walIndex = () => {
      const header = fs.readFileSync(`${store.file}-shm`).subarray(0, 100);
      return { frames: header.readUInt32LE(16), backfilled: header.readUInt32LE(96) };
    };
    await waitUntil(async () => {
      for (let i = 0; i < 50; i++, commits++) audit.record('test', 'write', String(commits));
      await new Promise((resolve) => setTimeout(resolve, 5));
      const { frames, backfilled } = walIndex();
      return backfilled > 0 || frames < commits;
    }, 20_000, 'a checkpoint from the thread');

    await checkpointer.stop();
    expect(autocheckpoint()).toBe(1000);
    expect(errors).toEqual([]);
    expect(audit.recent(1)[0]!.detail).toBe(String(commits - 1));
    store.close();
  });
});
