import type { AuditBackend } from '../async-domains.js';
import type { AuditEntry } from '../audit.js';
import type { PgStore } from './pg-store.js';

/** The audit log on PostgreSQL. */
export function createPgAuditLog(store: PgStore, now: () => number = Date.now): AuditBackend {
  return {
    async record(source, kind, detail) {
      await store.query('INSERT INTO audit (at_ms, source, kind, detail) VALUES ($1, $2, $3, $4)', [now(), source, kind, detail ?? null]);
    },
    recent: async (limit = 50) => (await store.query<AuditEntry>('SELECT id, at_ms AS "atMs", source, kind, detail FROM audit ORDER BY id DESC LIMIT $1', [limit])).rows,
  };
}
