/** The keys of each pane, short: the bottom line shows them once its last notice is old (`?` has them all). */
const paneKeys: Record<string, string> = {
  MCP: '↑↓ select · Enter details · R reconnect · l login · e edit · F filter',
  Webhooks: '↑↓ select · Enter details · r replay · t test · c copy · e edit · f follow · F filter',
  Jobs: '↑↓ select · Enter run history · n run now · e edit · F filter',
  Approvals: '↑↓ select · v revoke a session grant · A reopen put-off requests · F filter',
  Logs: '↑↓ PgUp/PgDn g/G · Enter whole line · F filter',
  Output: '↑↓ select · Enter open · c copy · F filter',
};

/**
 * A pane's question waiting for its key (copy a route's secret?). It goes to the bottom line, which
 * spans the terminal, rather than under the pane, which may have 60 % of it.
 */
export interface PanePrompt {
  text: string;
  color?: string;
}

/** How long a notice stays on the bottom line before the focused pane's keys take its place. */
export const NOTICE_SHOWN_MS = 15_000;

export function paneHint(pane: string): string {
  return `${paneKeys[pane] ?? ''} · X runs · D deliveries · M messages · / commands · ? all keys`.replace(/^ · /, '');
}
