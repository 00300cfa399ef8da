import type { ApprovalStatus, ToolAnnotations } from '../agent/types.js';
import type { Store } from './database.js';
import { escapeLike } from './sql-text.js';

export interface ApprovalRecord {
  id: string;
  origin: string;
  tool: string;
  server: string | null;
  argsPreview: string;
  annotations: ToolAnnotations | null;
  reason: string | null;
  form: { message: string; schema: Record<string, unknown> } | null;
  status: ApprovalStatus;
  decisionReason: string | null;
  decidedBy: string | null;
  values: Record<string, unknown> | null;
  createdAtMs: number;
  expiresAtMs: number;
  decidedAtMs: number | null;
  /** Cluster mode: the node whose run asked (absent on SQLite). */
  node?: string;
}

type Row = Omit<ApprovalRecord, 'annotations' | 'form' | 'values'> & { annotations: string | null; form: string | null; valuesJson: string | null };

const columns = `id, origin, tool, server, args_preview AS argsPreview, annotations, reason, form, status, decision_reason AS decisionReason,
  decided_by AS decidedBy, values_json AS valuesJson, created_at_ms AS createdAtMs, expires_at_ms AS expiresAtMs, decided_at_ms AS decidedAtMs`;

function fromRow(row: Row | undefined): ApprovalRecord | undefined {
  if (!row) return undefined;
  const { valuesJson, ...rest } = row;
  return {
    ...rest,
    annotations: row.annotations ? JSON.parse(row.annotations) : null,
    form: row.form ? JSON.parse(row.form) : null,
    values: valuesJson ? JSON.parse(valuesJson) : null,
  };
}

/** Approval requests as data, shared by the gateway and `switchboard approvals` in other processes. */
export function createApprovalStore(store: Store) {
  const insert = store.db.prepare(`INSERT INTO approvals (id, origin, tool, server, args_preview, annotations, reason, form, status, created_at_ms, expires_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`);
  // Only a pending request can be decided: the first decision wins, across processes.
  const decide = store.db.prepare(`UPDATE approvals SET status = ?, decision_reason = ?, decided_by = ?, values_json = ?, decided_at_ms = ?
    WHERE id = ? AND status = 'pending'`);
  const byId = store.db.prepare(`SELECT ${columns} FROM approvals WHERE id = ?`);
  const pending = store.db.prepare(`SELECT ${columns} FROM approvals WHERE status = 'pending' ORDER BY created_at_ms, rowid`);
  const recent = store.db.prepare(`SELECT ${columns} FROM approvals ORDER BY created_at_ms DESC, rowid DESC LIMIT ?`);
  const byPrefix = store.db.prepare(`SELECT ${columns} FROM approvals WHERE id LIKE ? || '%' ESCAPE '\\' LIMIT 2`);

  return {
    insert(record: Pick<ApprovalRecord, 'id' | 'origin' | 'tool' | 'server' | 'argsPreview' | 'annotations' | 'reason' | 'form' | 'createdAtMs' | 'expiresAtMs'>): void {
      insert.run(record.id, record.origin, record.tool, record.server, record.argsPreview, record.annotations ? JSON.stringify(record.annotations) : null,
        record.reason, record.form ? JSON.stringify(record.form) : null, record.createdAtMs, record.expiresAtMs);
    },
    /** True when this call made the decision; false when it was already decided. */
    decide(id: string, status: Exclude<ApprovalStatus, 'pending'>, details: { reason?: string; by: string; values?: Record<string, unknown>; atMs: number }): boolean {
      return decide.run(status, details.reason ?? null, details.by, details.values ? JSON.stringify(details.values) : null, details.atMs, id).changes > 0;
    },
    get: (id: string) => fromRow(byId.get(id) as Row | undefined),
    /** An id or an unambiguous prefix of one (operators type the first characters). */
    find(idOrPrefix: string): ApprovalRecord | 'ambiguous' | undefined {
      const rows = byPrefix.all(escapeLike(idOrPrefix)) as Row[];
      if (rows.length > 1) return rows.some((row) => row.id === idOrPrefix) ? fromRow(rows.find((row) => row.id === idOrPrefix)) : 'ambiguous';
      return fromRow(rows[0]);
    },
    pending: () => (pending.all() as Row[]).map((row) => fromRow(row)!),
    recent: (limit = 50) => (recent.all(limit) as Row[]).map((row) => fromRow(row)!),
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
