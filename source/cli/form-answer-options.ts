import { elicitationFields } from '../operations/elicitation-fields.js';
import { formAnswer } from '../operations/form-answer.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { asksFor } from './form-format.js';
import { UsageError } from './output.js';

export interface AnswerOptions {
  value: string[];
  json?: string;
  decline?: boolean;
}

/** What `approvals answer` was told to send: a decline, or values to check against the form once it is read. */
export type GivenAnswer = 'decline' | { check(request: ApprovalRecord): Record<string, unknown> };

/** The options as given; a malformed `--value` or `--json`, or values with `--decline`, is a usage mistake (exit 2). */
export function formAnswerOptions(options: AnswerOptions): GivenAnswer {
  if (options.decline) {
    if (options.value.length > 0 || options.json !== undefined) throw new UsageError('--decline sends no values: give either --decline or --value/--json');
    return 'decline';
  }
  const texts = options.value.map(namedText);
  const seen = new Set<string>();
  for (const [key] of texts) {
    if (seen.has(key)) throw new UsageError(`--value ${key} is given twice (a multiple choice takes its values at once: --value ${key}=a,b)`);
    seen.add(key);
  }
  const values = options.json === undefined ? {} : jsonObject(options.json);
  return {
    check(request) {
      // A decided request or a tool call: the operation refuses it in its own words.
      if (!request.form || request.status !== 'pending') return values;
      const answer = formAnswer(elicitationFields(request.form.schema), { values, texts });
      if (answer.ok) return answer.values;
      throw new UsageError(`The answer does not fit the form of approval ${request.id.slice(0, 8)} (${asksFor({ ...request, form: request.form })})`, answer.problems,
        'Nothing was sent. See its fields: switchboard approvals list');
    },
  };
}

function namedText(item: string): [string, string] {
  const at = item.indexOf('=');
  if (at <= 0) throw new UsageError(`--value "${item}" must look like field=value`);
  return [item.slice(0, at), item.slice(at + 1)];
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--json is not JSON (${(error as Error).message}); give an object such as '{"name": "Ada"}'`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`--json must be a JSON object such as '{"name": "Ada"}' (got ${JSON.stringify(value)})`);
  return value as Record<string, unknown>;
}
