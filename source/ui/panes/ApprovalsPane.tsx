import type { ConsoleState } from '../console-model.js';
import { ListView } from '../components/ListView.js';
import { formatDuration } from '../format.js';

/** The pending queue, head first. Decisions happen in the dialog over it. */
export function ApprovalsPane({ state, height, width, focused, now }: { state: ConsoleState; height: number; width: number; focused: boolean; now: number }) {
  const rows = state.approvals.map((request, index) => ({
    key: request.id,
    text: `${index + 1}. ${request.server ? `${request.server} / ` : ''}${request.tool} from ${request.origin} · ${formatDuration(request.expiresAtMs - now)} left${request.reason ? ` · ${request.reason}` : ''}`,
  }));
  return <ListView rows={rows} height={height} width={width} focused={focused} empty="No tool calls are waiting for approval." />;
}
