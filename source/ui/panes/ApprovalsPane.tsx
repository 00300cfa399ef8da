import type { ConsoleState } from '../console-model.js';
import { ListView, type ListRow } from '../components/ListView.js';
import { column, formatDuration } from '../format.js';
import { theme } from '../theme.js';

/** The pending queue, head first, in fixed columns (a long server or tool name is cut). Decisions happen in the dialog over it. */
export function ApprovalsPane({ state, height, width, focused, now }: { state: ConsoleState; height: number; width: number; focused: boolean; now: number }) {
  const serverWidth = Math.min(16, Math.max(6, ...state.approvals.map((request) => (request.server ?? '-').length)));
  const toolWidth = Math.min(24, Math.max(4, ...state.approvals.map((request) => request.tool.length)));
  const rows: ListRow[] = state.approvals.map((request, index) => ({
    key: request.id,
    text: '',
    parts: [
      { text: `${column(`${index + 1}.`, 4)} ${column(request.server ?? '-', serverWidth)} ${column(request.tool, toolWidth)} ` },
      { text: `${column(`${formatDuration(request.expiresAtMs - now)} left`, 12)} `, color: theme.warn },
      { text: `${request.origin}${request.reason ? ` · ${request.reason}` : ''}`, dim: true },
    ],
  }));
  return <ListView rows={rows} height={height} width={width} focused={focused} empty="No tool calls are waiting for approval." />;
}
