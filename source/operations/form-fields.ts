import { parseCliValue } from '../config/edit.js';

/**
 * How a form field's text becomes a value. `choice`/`choices` take one/several of `options`
 * (comma-separated); `list` is comma-separated text or a JSON list; `json` is JSON, else text
 * (like `config set`); `secret` is typed masked, and empty keeps the value it had.
 */
export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices' | 'list' | 'json' | 'secret';

export interface FormField {
  /** The config key or elicitation property it sets. */
  key: string;
  label: string;
  kind: FieldKind;
  /** The text the input starts with. */
  initial: string;
  required?: boolean;
  /** One line shown under the focused field: what it means, what is accepted. */
  hint?: string;
  options?: ReadonlyArray<{ value: string; label?: string }>;
  /** Further checks on the parsed value (ranges, formats); returns the problem. */
  check?: (value: unknown) => string | undefined;
}

/** Problems by field key; the key '' holds those that belong to no single field. */
export type FieldErrors = Record<string, string>;

export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

const yes = ['true', 'yes', 'y', 'on'];
const no = ['false', 'no', 'n', 'off'];

/** One field's text as a value; empty text is `undefined` (unset), refused when the field is required. */
export function parseField(field: FormField, text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === '') return field.required && field.kind !== 'secret' ? { ok: false, reason: 'is required' } : { ok: true, value: undefined };
  const parsed = parseText(field, field.kind === 'text' || field.kind === 'secret' ? text : trimmed);
  if (!parsed.ok || !field.check) return parsed;
  const problem = field.check(parsed.value);
  return problem ? { ok: false, reason: problem } : parsed;
}

function parseText(field: FormField, text: string): Parsed {
  switch (field.kind) {
    case 'text':
      return { ok: true, value: text };
    case 'secret':
      return { ok: true, value: text.startsWith('[') ? parseCliValue(text) : text };
    case 'number':
    case 'integer': {
      const value = Number(text);
      if (!Number.isFinite(value)) return { ok: false, reason: `must be a number (got "${text}")` };
      if (field.kind === 'integer' && !Number.isInteger(value)) return { ok: false, reason: `must be a whole number (got ${text})` };
      return { ok: true, value };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (yes.includes(lower)) return { ok: true, value: true };
      if (no.includes(lower)) return { ok: true, value: false };
      return { ok: false, reason: `must be true or false (got "${text}")` };
    }
    case 'choice':
      return choose(field, text);
    case 'choices': {
      const values: string[] = [];
      for (const item of commaItems(text)) {
        const one = choose(field, item);
        if (!one.ok) return one;
        values.push(one.value as string);
      }
      return { ok: true, value: values };
    }
    case 'list': {
      if (!text.startsWith('[')) return { ok: true, value: commaItems(text) };
      const value = parseCliValue(text);
      return Array.isArray(value) ? { ok: true, value } : { ok: false, reason: 'is not a JSON list; write a, b or ["a", "b"]' };
    }
    case 'json':
      return { ok: true, value: parseCliValue(text) };
  }
}

/** An option by value, or by its label (case-insensitive): enum titles are what people read. */
function choose(field: FormField, text: string): Parsed {
  const options = field.options ?? [];
  const match = options.find((option) => option.value === text) ?? options.find((option) => option.label?.toLowerCase() === text.toLowerCase());
  return match ? { ok: true, value: match.value } : { ok: false, reason: `must be one of ${options.map((option) => option.value).join(', ')} (got "${text}")` };
}

function commaItems(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Every field parsed; on any problem, all problems by field key. */
export function parseFields(fields: readonly FormField[], texts: Readonly<Record<string, string>>): { ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    const parsed = parseField(field, texts[field.key] ?? '');
    if (parsed.ok) values[field.key] = parsed.value;
    else errors[field.key] = parsed.reason;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, values };
}

/** The text a value starts as: lists as `a, b` (JSON when an item holds a comma), objects as JSON. */
export function initialText(kind: FieldKind, value: unknown): string {
  if (value === undefined || value === null || kind === 'secret') return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && (kind === 'list' || kind === 'choices') && value.every((item) => typeof item === 'string' && !item.includes(','))) return value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
