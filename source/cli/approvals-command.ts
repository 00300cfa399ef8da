import { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { createApprovalStore, type ApprovalRecord } from '../store/approvals.js';
import { openStore } from '../store/database.js';
import { homeOf } from './context.js';
import { print, say } from './output.js';

/**
 * `switchboard approvals`: decide pending tool calls from another terminal. Decisions are written
 * to the store; the process waiting on them (gateway or `switchboard run`) acts within a second.
 */
export function approvalsCommand(): Command {
  const approvals = new Command('approvals').description('List, approve or deny tool calls waiting for the operator');

  approvals
    .command('list')
    .description('Pending approvals (with --all: recent ones in every state)')
    .option('--all', 'include decided, expired and cancelled requests')
    .option('--json', 'machine-readable output')
    .action((options: { all?: boolean; json?: boolean }, command: Command) => {
      withApprovals(command, (records) => {
        const rows = options.all ? records.recent(50) : records.pending();
        if (options.json) return print(JSON.stringify(rows, undefined, 2));
        if (rows.length === 0) return say(options.all ? 'No approval requests yet.' : 'No pending approvals.');
        for (const row of rows) print(describe(row));
      });
    });

  for (const decision of ['approve', 'deny'] as const) {
    approvals
      .command(`${decision} <id>`)
      .description(decision === 'approve' ? 'Approve one pending request (id or its first characters)' : 'Deny one pending request')
      .option('--reason <text>', 'told to the agent and kept in the record')
      .action((id: string, options: { reason?: string }, command: Command) => {
        withApprovals(command, (records) => {
          const found = records.find(id);
          if (found === 'ambiguous') throw new ConfigError('APPROVAL_AMBIGUOUS', `"${id}" matches more than one approval`, 'Type more characters of the id (switchboard approvals list).');
          if (!found) throw new ConfigError('APPROVAL_NOT_FOUND', `No approval with id "${id}"`, 'See the pending ones: switchboard approvals list');
          const status = decision === 'approve' ? 'approved' : 'denied';
          if (!records.decide(found.id, status, { reason: options.reason, by: 'cli', atMs: Date.now() })) {
            const current = records.get(found.id)!;
            throw new ConfigError('APPROVAL_DECIDED', `Approval ${found.id} is already ${current.status}${current.decidedBy ? ` (by ${current.decidedBy})` : ''}`, 'Nothing was changed.');
          }
          say(`${status === 'approved' ? 'Approved' : 'Denied'} ${found.tool} for ${found.origin} (${found.id}).`);
        });
      });
  }
  return approvals;
}

function withApprovals(command: Command, work: (records: ReturnType<typeof createApprovalStore>) => void): void {
  const store = openStore(homeOf(command).stateDb);
  try {
    work(createApprovalStore(store));
  } finally {
    store.close();
  }
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
