import { Command } from './commander.js';
import { elicitationFields } from '../operations/elicitation-fields.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { answerCommand, fieldJson, fieldLines } from './form-format.js';
import { formAnswerOptions, type AnswerOptions } from './form-answer-options.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/**
 * `switchboard approvals`: decide pending tool calls and answer MCP servers' forms from another
 * terminal. Through the running gateway, the waiting run goes on before the command returns, and
 * every console sees it.
 */
export function approvalsCommand(): Command {
  const approvals = new Command('approvals').description('List, approve or deny tool calls waiting for the operator, and answer MCP servers\' forms');

  approvals
    .command('list')
    .description('Pending approvals (with --all: recent ones in every state); a form shows its message and fields')
    .option('--all', 'include decided, expired and cancelled requests')
    .option('--json', 'machine-readable output (a form\'s fields under "fields")')
    .action((options: { all?: boolean; json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const rows = await operations.approvals.list({ all: options.all === true });
      if (options.json) return print(JSON.stringify(rows.map(withFields), undefined, 2));
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

  approvals
    .command('answer <id>')
    .description('Answer an MCP server\'s form (elicitation): its fields with --value, or --decline')
    .option('--value <field=value>', 'one field (repeatable); a multiple choice takes a,b', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--json <object>', 'the whole answer as a JSON object (--value entries go on top)')
    .option('--decline', 'decline to answer (the server hears "decline")')
    .action((id: string, options: AnswerOptions, command: Command) => {
      const given = formAnswerOptions(options); // usage mistakes first: nothing is looked up
      return withOperations(command, async ({ operations }) => {
        const request = await operations.approvals.get({ id });
        const answer = given === 'decline' ? { decline: true } : { values: given.check(request) };
        const record = await operations.approvals.answer({ id: request.id, ...answer, by: 'cli' });
        say(`${record.status === 'approved' ? 'Sent the answer' : 'Declined the form'} of ${record.server ?? record.origin} (${record.id}).`);
      });
    });
  return approvals;
}

function withFields(row: ApprovalRecord): ApprovalRecord & { fields?: Array<Record<string, unknown>> } {
  return row.form ? { ...row, fields: elicitationFields(row.form.schema).map(fieldJson) } : row;
}

function describe(row: ApprovalRecord): string {
  const left = row.status === 'pending' ? `, ${Math.max(0, Math.round((row.expiresAtMs - Date.now()) / 1000))} s left` : '';
  const lines = [`${row.id}  ${row.status}${left}`];
  if (row.form) {
    lines.push(`  form from ${row.server ?? row.origin}: ${row.form.message}`);
    if (row.status === 'pending') {
      const fields = elicitationFields(row.form.schema);
      lines.push(...(fields.length > 0 ? ['  fields:', ...fieldLines(fields, '    ')] : ['  no fields (an answer sends an empty form)']));
      lines.push(`  answer: ${answerCommand(row, fields)} (or --decline)`);
    }
  } else {
    lines.push(`  ${row.server ? `${row.server} / ` : ''}${row.tool}  from ${row.origin}${row.reason ? `  (${row.reason})` : ''}`);
    lines.push(...row.argsPreview.split('\n').map((line) => `    ${line}`));
  }
  if (row.decisionReason) lines.push(`  reason: ${row.decisionReason}`);
  return lines.join('\n');
}
