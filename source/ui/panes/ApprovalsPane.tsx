import type { Operations } from '../../operations/index.js';
import type { ConsoleState } from '../console-model.js';
import { ListView, type ListRow, type PaneFilter } from '../components/ListView.js';
import { clockTime, column, formatDuration } from '../format.js';
import { theme } from '../theme.js';

/** What `field:value` can name in this pane's filter. */
const approvalFields = ['tool', 'server', 'origin', 'status', 'node'];

/** Cluster mode: the node whose run asked, as webhook rows show theirs (before the origin, which a narrow pane cuts). */
const at = (record: { node?: string }) => (record.node ? `@${record.node} ` : '');

const grantKey = (grant: { tool: string; server: string | null }) => `grant:${grant.server ?? ''}:${grant.tool}`;

/**
 * The pending queue, head first, in fixed columns (a long server or tool name is cut); decisions
 * happen in the dialog over it. Under it the tools approved for the session (`v` revokes one) and the
 * last decided requests, so an expired one stays visible as expired.
 */
/** The tool's MCP server; the agent's own tools (terminal, cronjob) have none. */
const serverOf = (request: { server?: string | null }) => request.server ?? 'built-in';

export function ApprovalsPane({ state, ops, height, width, focused, now, onNotice, ...filter }: PaneFilter & {
  state: ConsoleState; ops: Pick<Operations, 'approvals'>; height: number; width: number; focused: boolean; now: number; onNotice: (text: string) => void;
}) {
  const all = [...state.approvals, ...state.approvalHistory];
  const serverWidth = Math.min(16, Math.max(6, ...all.map((request) => serverOf(request).length)));
  const toolWidth = Math.min(24, Math.max(4, ...all.map((request) => request.tool.length)));
  const pending: ListRow[] = state.approvals.map((request, index) => ({
    key: request.id,
    text: '',
    fields: { tool: request.tool, server: request.server ?? '', origin: request.origin, status: 'pending', node: request.node ?? '' },
    parts: [
      { text: `${column(`${index + 1}.`, 4)} ${column(serverOf(request), serverWidth)} ${column(request.tool, toolWidth)} ` },
      { text: `${column(`${formatDuration(request.expiresAtMs - now)} left`, 12)} `, color: theme.warn },
      { text: `${at(request)}${request.origin}${request.reason ? ` · ${request.reason}` : ''}`, dim: true },
    ],
  }));
  const grants: ListRow[] = state.grants.map((grant) => ({
    key: grantKey(grant),
    text: '',
    fields: { tool: grant.tool, server: grant.server ?? '', status: 'granted' },
    parts: [
      { text: `${column('ok', 4)} ${column(serverOf(grant), serverWidth)} ${column(grant.tool, toolWidth)} `, color: theme.ok },
      { text: 'approved for the session · v revokes', dim: true },
    ],
  }));
  const decided: ListRow[] = state.approvalHistory.map((record) => ({
    key: `decided:${record.id}`,
    text: '',
    fields: { tool: record.tool, server: record.server ?? '', origin: record.origin, status: record.status, node: record.node ?? '' },
    parts: [
      { text: `${column('', 4)} ${column(serverOf(record), serverWidth)} ${column(record.tool, toolWidth)} `, dim: true },
      { text: `${column(record.status, 12)} `, color: record.status === 'approved' ? theme.ok : record.status === 'expired' ? theme.warn : theme.error },
      { text: `${record.decidedAtMs ? clockTime(record.decidedAtMs) : ''} ${at(record)}${record.origin}${record.decisionReason ? ` · ${record.decisionReason}` : ''}`, dim: true },
    ],
  }));
  return (
    <ListView
      rows={[...pending, ...grants, ...decided]} height={height} width={width} focused={focused} scopes={['approvals']} title="Approvals: pending, session grants, decided" {...filter} fields={approvalFields}
      empty="No tool calls are waiting for approval, none is approved for the session, none decided yet."
      onCommand={(command, row) => {
        if (command !== 'approval.revoke') return;
        const grant = state.grants.find((candidate) => grantKey(candidate) === row?.key);
        if (!grant) return onNotice('v revokes a session grant: select one of the "approved for the session" rows.');
        void ops.approvals.revokeGrant({ tool: grant.tool, server: grant.server }).then(
          () => onNotice(`Revoked the session grant of ${grant.server ? `${grant.server} / ` : ''}${grant.tool}: its calls ask again.`),
          (error: unknown) => onNotice((error as Error).message));
      }}
    />
  );
}
