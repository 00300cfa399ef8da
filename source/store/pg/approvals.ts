import type { ApprovalBackend } from '../async-domains.js';
import type { ApprovalRecord } from '../approvals.js';
import { escapeLike } from '../sql-text.js';
import type { PgStore } from './pg-store.js';

const columns = `id, origin, tool, server, args_preview AS "argsPreview", annotations, reason, form, status, decision_reason AS "decisionReason",
  decided_by AS "decidedBy", values_json AS "values", created_at_ms AS "createdAtMs", expires_at_ms AS "expiresAtMs", decided_at_ms AS "decidedAtMs", node_id AS "node"`;

/** Approval requests on PostgreSQL: a request made by a run on one node (`nodeId`, kept with it) can be decided from any other. */
export function createPgApprovalStore(store: PgStore, nodeId: string): ApprovalBackend {
  const select = async (where: string, params: unknown[]) => (await store.query<ApprovalRecord & { node: string | null }>(`SELECT ${columns} FROM approvals ${where}`, params)).rows
    .map(({ node, ...record }) => (node ? { ...record, node } : record));
  return {
    async insert(record) {
      await store.query(`INSERT INTO approvals (id, origin, tool, server, args_preview, annotations, reason, form, status, created_at_ms, expires_at_ms, node_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11)`,
      [record.id, record.origin, record.tool, record.server, record.argsPreview, record.annotations ? JSON.stringify(record.annotations) : null,
        record.reason, record.form ? JSON.stringify(record.form) : null, record.createdAtMs, record.expiresAtMs, nodeId]);
    },
    // Only a pending request can be decided: the first decision wins, across nodes (the row lock of the UPDATE).
    async decide(id, status, details) {
      const result = await store.query(`UPDATE approvals SET status = $1, decision_reason = $2, decided_by = $3, values_json = $4, decided_at_ms = $5
        WHERE id = $6 AND status = 'pending'`, [status, details.reason ?? null, details.by, details.values ? JSON.stringify(details.values) : null, details.atMs, id]);
      return (result.rowCount ?? 0) > 0;
    },
    get: async (id) => (await select('WHERE id = $1', [id]))[0],
    async find(idOrPrefix) {
      const rows = await select(`WHERE id LIKE $1 || '%' ESCAPE '\\' LIMIT 2`, [escapeLike(idOrPrefix)]);
      if (rows.length > 1) return rows.find((row) => row.id === idOrPrefix) ?? 'ambiguous';
      return rows[0];
    },
    pending: () => select(`WHERE status = 'pending' ORDER BY created_at_ms, inserted`, []),
    recent: (limit = 50) => select('ORDER BY created_at_ms DESC, inserted DESC LIMIT $1', [limit]),
  };
}
