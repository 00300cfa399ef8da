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
    /** Kept, not thrown: a gateway stopping on a full disk still stops (the line is lost if it never can be written). */
    record(source: string, kind: string, detail?: string): void {
      const atMs = now();
      store.keep(() => insert.run(atMs, source, kind, detail ?? null)).catch(() => {});
    },
    recent(limit = 50): AuditEntry[] {
      return recent.all(limit) as unknown as AuditEntry[];
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
