import type { ElicitationField } from '../operations/elicitation-fields.js';
import { mustFill } from '../operations/form-answer.js';
import { parseField } from '../operations/form-fields.js';
import { fieldSummary } from './form-format.js';
import { say } from './output.js';
import type { Ask } from './terminal-questions.js';

export type TerminalAnswer = { decline: true } | { values: Record<string, unknown> };

/**
 * A form asked at the terminal: `answer (2 fields, 1 required)? [y/N]` first (Enter declines, as Enter denies a tool
 * call), then one question per field, converted as the console's form converts it; a value that
 * does not fit is asked again with the reason. Undefined when the questions are ended (the form was
 * decided elsewhere, or the run ended).
 */
export async function askForm(ask: Ask, fields: readonly ElicitationField[]): Promise<TerminalAnswer | undefined> {
  const required = fields.filter(mustFill).length;
  const answer = await ask(`    answer${fields.length > 0 ? ` (${fields.length} field${fields.length === 1 ? '' : 's'}${required > 0 ? `, ${required} required` : ''})` : ''}? [y/N] `);
  if (answer === undefined) return undefined;
  if (!['y', 'yes'].includes(answer.trim().toLowerCase())) return { decline: true };
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    for (;;) {
      const text = await ask(`    ${field.key}${field.description ? ` · ${field.description}` : ''} (${fieldSummary(field)}): `);
      if (text === undefined) return undefined;
      // Empty leaves an optional field out (its default applies); a required one is asked again.
      const parsed = parseField({ ...field, required: mustFill(field) }, text);
      if (parsed.ok) {
        if (parsed.value !== undefined) values[field.key] = parsed.value;
        break;
      }
      say(`      ${field.key} ${parsed.reason}`);
    }
  }
  return { values };
}
