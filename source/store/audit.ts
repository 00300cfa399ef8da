import type { Store } from './database.js';

export interface AuditEntry {
  id: number;
  atMs: number;
  source: string;
  kind: string;
  detail: string | null;
}

/** What happened to the service itself: gateway starts and stops, config changes from the CLI. */
export function createAuditLog(store: Store, now: () => number = Date.now) {
  const insert = store.db.prepare('INSERT INTO audit (at_ms, source, kind, detail) VALUES (?, ?, ?, ?)');
  const recent = store.db.prepare('SELECT id, at_ms AS atMs, source, kind, detail FROM audit ORDER BY id DESC LIMIT ?');
  return {
    record(source: string, kind: string, detail?: string): void {
      insert.run(now(), source, kind, detail ?? null);
    },
    recent(limit = 50): AuditEntry[] {
      return recent.all(limit) as unknown as AuditEntry[];
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
