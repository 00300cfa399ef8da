import type { Key } from 'ink';

/** Where a key applies: dialogs take input before panes (STYLE.md section 5). */
export type KeyScope = 'global' | 'list' | 'view' | 'approval' | 'approvals' | 'mcp' | 'webhooks' | 'jobs' | 'form';

export type CommandName =
  | 'pane.next' | 'pane.previous' | 'pane.select'
  | 'list.up' | 'list.down' | 'list.pageUp' | 'list.pageDown' | 'list.top' | 'list.bottom' | 'list.follow' | 'item.open' | 'item.close'
  | 'pane.filter' | 'find.next' | 'find.previous'
  | 'delivery.replay' | 'webhook.test' | 'item.copy' | 'item.edit' | 'config.edit' | 'deliveries.open' | 'messages.open' | 'runs.open'
  | 'commandLine.open' | 'help.toggle' | 'app.quit'
  | 'approval.approve' | 'approval.approveSession' | 'approval.deny' | 'approval.dismiss' | 'approval.reopen'
  | 'approval.scroll' | 'approval.page'
  | 'mcp.login' | 'mcp.reconnect' | 'job.runNow' | 'approval.revoke'
  | 'form.next' | 'form.previous' | 'form.submit' | 'form.cancel';

export interface KeyBinding {
  command: CommandName;
  scope: KeyScope;
  keys: string;
  description: string;
  matches(input: string, key: Key): boolean;
}

const char = (c: string) => (input: string, key: Key) => input === c && !key.ctrl && !key.meta;

/** Every shortcut of the console, in one place; `?` lists them. */
export const keymap: readonly KeyBinding[] = [
  { command: 'pane.next', scope: 'global', keys: 'Tab', description: 'next pane', matches: (_i, k) => k.tab && !k.shift },
  { command: 'pane.previous', scope: 'global', keys: 'Shift-Tab', description: 'previous pane', matches: (_i, k) => k.tab && k.shift },
  { command: 'pane.select', scope: 'global', keys: '1-6', description: 'go to pane 1-6', matches: (i, k) => /^[1-6]$/.test(i) && !k.ctrl },
  { command: 'list.up', scope: 'list', keys: '↑ / k', description: 'move up', matches: (i, k) => k.upArrow || i === 'k' },
  { command: 'list.down', scope: 'list', keys: '↓ / j', description: 'move down', matches: (i, k) => k.downArrow || i === 'j' },
  { command: 'list.pageUp', scope: 'list', keys: 'PgUp', description: 'a page up', matches: (_i, k) => k.pageUp },
  { command: 'list.pageDown', scope: 'list', keys: 'PgDn', description: 'a page down', matches: (_i, k) => k.pageDown },
  { command: 'list.top', scope: 'list', keys: 'g / Home', description: 'to the top (a list: the newest)', matches: (i, k) => k.home || (i === 'g' && !k.ctrl && !k.meta) },
  { command: 'list.bottom', scope: 'list', keys: 'G / End', description: 'to the bottom', matches: (i, k) => k.end || (i === 'G' && !k.ctrl && !k.meta) },
  { command: 'find.next', scope: 'view', keys: 'n', description: 'next match of F in a details view', matches: char('n') },
  { command: 'find.previous', scope: 'view', keys: 'N', description: 'previous match of F in a details view', matches: char('N') },
  { command: 'list.follow', scope: 'webhooks', keys: 'f', description: 'follow the newest delivery, or stop following', matches: char('f') },
  { command: 'item.open', scope: 'list', keys: 'Enter', description: 'open details', matches: (_i, k) => k.return },
  { command: 'item.close', scope: 'list', keys: 'Esc', description: 'close details', matches: (_i, k) => k.escape },
  { command: 'delivery.replay', scope: 'webhooks', keys: 'r', description: 'replay the selected delivery', matches: char('r') },
  { command: 'webhook.test', scope: 'webhooks', keys: 't', description: 'send a signed test webhook to the selected route', matches: char('t') },
  { command: 'mcp.login', scope: 'mcp', keys: 'l', description: 'log in to the selected server (OAuth)', matches: char('l') },
  { command: 'mcp.reconnect', scope: 'mcp', keys: 'R', description: 'reconnect the selected server', matches: char('R') },
  { command: 'approval.revoke', scope: 'approvals', keys: 'v', description: 'revoke the selected session grant (its calls ask again)', matches: char('v') },
  { command: 'job.runNow', scope: 'jobs', keys: 'n', description: 'run the selected job now (asks first)', matches: char('n') },
  { command: 'item.copy', scope: 'list', keys: 'c', description: 'copy the item (a route: u URL, s secret)', matches: char('c') },
  { command: 'item.edit', scope: 'list', keys: 'e', description: 'edit the selected server, route or job', matches: char('e') },
  { command: 'deliveries.open', scope: 'global', keys: 'D', description: 'failed and uncertain deliveries (send again with r)', matches: char('D') },
  { command: 'runs.open', scope: 'global', keys: 'X', description: 'runs in flight: x cancels the selected one (asks first)', matches: char('X') },
  { command: 'messages.open', scope: 'global', keys: 'M', description: 'the messages shown on the bottom line, newest first', matches: char('M') },
  { command: 'config.edit', scope: 'global', keys: 'E', description: 'edit config.json in $EDITOR', matches: char('E') },
  { command: 'pane.filter', scope: 'global', keys: 'F', description: 'filter the pane (words, field:value, !word); details: find', matches: char('F') },
  { command: 'commandLine.open', scope: 'global', keys: '/', description: 'command line (/help lists commands)', matches: char('/') },
  { command: 'help.toggle', scope: 'global', keys: '?', description: 'this help', matches: char('?') },
  { command: 'app.quit', scope: 'global', keys: 'q / Ctrl-C', description: 'quit (asks while runs are in flight)', matches: (i, k) => i === 'q' || (k.ctrl && i === 'c') },
  { command: 'approval.approve', scope: 'approval', keys: 'a', description: 'approve once; a form: fill in', matches: char('a') },
  { command: 'approval.approveSession', scope: 'approval', keys: 's', description: 'approve this tool for the session', matches: char('s') },
  { command: 'approval.deny', scope: 'approval', keys: 'd', description: 'deny (+ reason); decline a form', matches: char('d') },
  { command: 'approval.dismiss', scope: 'approval', keys: 'Esc', description: 'decide later (stays pending; A reopens)', matches: (_i, k) => k.escape },
  { command: 'approval.scroll', scope: 'approval', keys: 'j k / ↑↓', description: 'scroll the arguments', matches: (i, k) => k.upArrow || k.downArrow || ((i === 'j' || i === 'k') && !k.ctrl && !k.meta) },
  { command: 'approval.page', scope: 'approval', keys: 'PgUp/PgDn', description: 'scroll the arguments a page', matches: (_i, k) => k.pageUp || k.pageDown },
  { command: 'approval.reopen', scope: 'global', keys: 'A', description: 'reopen approval requests put off with Esc', matches: char('A') },
  // Forms (e, elicitation): arrows and Tab never type text, so they move between fields.
  { command: 'form.next', scope: 'form', keys: 'Tab / ↓', description: 'next field', matches: (_i, k) => (k.tab && !k.shift) || k.downArrow },
  { command: 'form.previous', scope: 'form', keys: 'S-Tab / ↑', description: 'previous field', matches: (_i, k) => (k.tab && k.shift) || k.upArrow },
  { command: 'form.submit', scope: 'form', keys: 'Enter', description: 'next field; on the last: save', matches: (_i, k) => k.return },
  { command: 'form.cancel', scope: 'form', keys: 'Esc', description: 'cancel; decline a server form', matches: (_i, k) => k.escape },
];

/** The command a key press means in the given scopes, first scope first. */
export function commandFor(input: string, key: Key, scopes: readonly KeyScope[]): KeyBinding | undefined {
  for (const scope of scopes) {
    const binding = keymap.find((candidate) => candidate.scope === scope && candidate.matches(input, key));
    if (binding) return binding;
  }
  return undefined;
}
