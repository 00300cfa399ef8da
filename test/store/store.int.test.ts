import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../source/store/audit.js';
import { openStore } from '../../source/store/database.js';
import { migrations } from '../../source/store/migrations.js';
import { tempHome } from '../helpers/temp-home.js';

const writer = fileURLToPath(new URL('../fixtures/store-writer.mjs', import.meta.url));

function runWriter(file: string, source: string, count: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [writer, file, source, String(count)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('state store', () => {
  it('opens in WAL mode with a busy timeout, migrated to the latest version, owner-only', () => {
    const home = tempHome();
    const store = openStore(home.stateDb);
    const pragma = (name: string) => Object.values(store.db.prepare(`PRAGMA ${name}`).get()!)[0];
    expect(pragma('journal_mode')).toBe('wal');
    expect(pragma('busy_timeout')).toBe(5000);
    expect(pragma('user_version')).toBe(migrations.at(-1)!.version);
    expect(fs.statSync(home.stateDb).mode & 0o777).toBe(0o600);
    store.close();
  });

  it('applies only the migrations that are missing, once', () => {
    const home = tempHome();
    const first = [{ version: 1, name: 'a', sql: 'CREATE TABLE a (x)' }];
    openStore(home.stateDb, first).close();
    const store = openStore(home.stateDb, [...first, { version: 2, name: 'b', sql: 'CREATE TABLE b (y)' }]);
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((row) => row.name);
    expect(tables).toEqual(['a', 'b']);
    store.close();
  });

  it('rolls a failed transaction back', () => {
    const home = tempHome();
    const store = openStore(home.stateDb);
    const audit = createAuditLog(store);
    expect(() => store.transaction(() => { audit.record('t', 'k'); throw new Error('fail'); })).toThrow('fail');
    expect(audit.recent()).toEqual([]);
    store.close();
  });

  it('two OS processes writing at once lose nothing', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const perWriter = 2000;
    const results = await Promise.all([runWriter(home.stateDb, 'one', perWriter), runWriter(home.stateDb, 'two', perWriter)]);
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    const store = openStore(home.stateDb);
    const counts = store.db.prepare('SELECT source, COUNT(*) AS n, COUNT(DISTINCT detail) AS d FROM audit GROUP BY source ORDER BY source').all();
    expect(counts).toEqual([{ source: 'one', n: perWriter, d: perWriter }, { source: 'two', n: perWriter, d: perWriter }]);
    store.close();
  });
});
