import type { ElicitationField } from './elicitation-fields.js';
import { parseField } from './form-fields.js';

/**
 * The operator's answer to an elicitation form, checked against the form's fields before anything
 * is sent: typed text (`--value name=text`, a question at the terminal) is converted as the
 * console's form converts it; JSON values must already have the field's type.
 */
export type FormAnswer = { ok: true; values: Record<string, unknown> } | { ok: false; problems: string[] };

/** A field the operator has to fill in: required, and no default the server would apply. */
export function mustFill(field: ElicitationField): boolean {
  return field.required === true && field.default === undefined;
}

/** `values` (JSON, typed) then `texts` (name and text, converted); every unknown field, wrong value and missing required field is a problem naming the field. */
export function formAnswer(fields: readonly ElicitationField[], given: { values?: Readonly<Record<string, unknown>>; texts?: ReadonlyArray<readonly [string, string]> }): FormAnswer {
  const byKey = new Map(fields.map((field) => [field.key, field]));
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  const troubled = new Set<string>();
  const problem = (key: string, text: string) => {
    troubled.add(key);
    problems.push(`${key}: ${text}`);
  };
  const unknown = (key: string) => problem(key, `not a field of this form (its fields: ${fields.map((field) => field.key).join(', ') || 'none'})`);
  for (const [key, value] of Object.entries(given.values ?? {})) {
    const field = byKey.get(key);
    if (!field) unknown(key);
    else if (value !== undefined) {
      const wrong = typeProblem(field, value) ?? field.check?.(value);
      if (wrong) problem(key, wrong);
      else values[key] = value;
    }
  }
  for (const [key, text] of given.texts ?? []) {
    const field = byKey.get(key);
    if (!field) {
      unknown(key);
      continue;
    }
    const parsed = parseField({ ...field, required: false }, text);
    if (!parsed.ok) problem(key, parsed.reason);
    else if (parsed.value === undefined) delete values[key];
    else values[key] = parsed.value;
  }
  for (const field of fields) {
    if (mustFill(field) && values[field.key] === undefined && !troubled.has(field.key)) problem(field.key, `is required (${field.accepts})`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** A JSON value of the wrong type for the field, in the words the text conversion uses. */
function typeProblem(field: ElicitationField, value: unknown): string | undefined {
  const got = `(got ${JSON.stringify(value)})`;
  switch (field.kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `must be a number ${got}`;
    case 'integer':
      return Number.isInteger(value) ? undefined : `must be a whole number ${got}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false ${got}`;
    case 'choice':
      return isOption(field, value) ? undefined : `must be one of ${optionList(field)} ${got}`;
    case 'choices':
      return Array.isArray(value) && value.every((item) => isOption(field, item)) ? undefined : `must be a list of ${optionList(field)} ${got}`;
    default:
      return typeof value === 'string' ? undefined : `must be text ${got}`;
  }
}

function isOption(field: ElicitationField, value: unknown): boolean {
  return typeof value === 'string' && (field.options ?? []).some((option) => option.value === value);
}

function optionList(field: ElicitationField): string {
  return (field.options ?? []).map((option) => option.value).join(', ');
}
