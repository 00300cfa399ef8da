import type { ElicitationField } from '../operations/elicitation-fields.js';
import { mustFill } from '../operations/form-answer.js';
import { initialText } from '../operations/form-fields.js';
import type { ApprovalRecord } from '../store/approvals.js';

/** An elicitation form as the CLI shows it: `approvals list`, and the lines of `run` and `cron run`. */

/** What a field accepts, whether it is required and its default: `a whole number from 1 to 100, default 42`. */
export function fieldSummary(field: ElicitationField): string {
  return `${field.accepts}${field.required ? ', required' : ''}${field.default !== undefined ? `, default ${initialText(field.kind, field.default)}` : ''}`;
}

/** One line per field, names aligned: `name  text, required · Your full name`. */
export function fieldLines(fields: readonly ElicitationField[], indent: string): string[] {
  const width = Math.max(0, ...fields.map((field) => field.key.length));
  return fields.map((field) => `${indent}${field.key.padEnd(width)}  ${fieldSummary(field)}${field.description ? ` · ${field.description}` : field.label !== field.key ? ` · ${field.label}` : ''}`);
}

/** A field for `approvals list --json`: name, schema type, required, choices, default, description. */
export function fieldJson(field: ElicitationField): Record<string, unknown> {
  return {
    name: field.key,
    ...(field.label !== field.key ? { title: field.label } : {}),
    type: field.type,
    required: field.required === true,
    ...(field.options ? { choices: field.options.map((option) => option.value) } : {}),
    ...(field.default !== undefined ? { default: field.default } : {}),
    ...(field.description ? { description: field.description } : {}),
    accepts: field.accepts,
  };
}

/** The command that answers the form, with the fields that must be filled in: `switchboard approvals answer 1a2b3c4d --value name=...`. */
export function answerCommand(request: ApprovalRecord, fields: readonly ElicitationField[]): string {
  const needed = fields.filter(mustFill);
  const values = needed.length > 0 ? needed.map((field) => ` --value ${field.key}=...`).join('') : fields.length > 0 ? ' [--value field=...]' : '';
  return `switchboard approvals answer ${request.id.slice(0, 8)}${values}`;
}

/** Who asks and what, on one line: `fx asks for: Your name?` (a colon that ends the message goes: other words follow it on the line). */
export function asksFor(request: ApprovalRecord & { form: NonNullable<ApprovalRecord['form']> }): string {
  return `${request.server ?? request.origin} asks for: ${request.form.message.replace(/\s+/g, ' ').trim().replace(/:$/, '') || '(no message)'}`;
}
