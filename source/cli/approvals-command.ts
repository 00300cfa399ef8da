import { Command } from './commander.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/**
 * `switchboard approvals`: decide pending tool calls from another terminal. Through the running
 * gateway, the waiting run goes on before the command returns, and every console sees it.
 */
export function approvalsCommand(): Command {
  const approvals = new Command('approvals').description('List, approve or deny tool calls waiting for the operator');

  approvals
    .command('list')
    .description('Pending approvals (with --all: recent ones in every state)')
    .option('--all', 'include decided, expired and cancelled requests')
    .option('--json', 'machine-readable output')
    .action((options: { all?: boolean; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const rows = await operations.approvals.list({ all: options.all === true });
      if (options.json) return print(JSON.stringify(rows, undefined, 2));
      if (rows.length === 0) return say(options.all ? 'No approval requests yet.' : 'No pending approvals.');
      for (const row of rows) print(describe(row));
    }));

  for (const decision of ['approve', 'deny'] as const) {
    approvals
      .command(`${decision} <id>`)
      .description(decision === 'approve' ? 'Approve one pending request (id or its first characters)' : 'Deny one pending request')
      .option('--reason <text>', 'told to the agent and kept in the record')
      .action((id: string, options: { reason?: string }, command: Command) => withOperations(command, async ({ operations }) => {
        const record = await operations.approvals.decide({ id, decision, ...(options.reason ? { reason: options.reason } : {}), by: 'cli' });
        say(`${record.status === 'approved' ? 'Approved' : 'Denied'} ${record.tool} for ${record.origin} (${record.id}).`);
      }));
  }
  return approvals;
}

function describe(row: ApprovalRecord): string {
  const left = row.status === 'pending' ? `, ${Math.max(0, Math.round((row.expiresAtMs - Date.now()) / 1000))} s left` : '';
  const lines = [
    `${row.id}  ${row.status}${left}`,
    `  ${row.server ? `${row.server} / ` : ''}${row.tool}  from ${row.origin}${row.reason ? `  (${row.reason})` : ''}`,
    ...row.argsPreview.split('\n').map((line) => `    ${line}`),
  ];
  if (row.decisionReason) lines.push(`  reason: ${row.decisionReason}`);
  return lines.join('\n');
}
