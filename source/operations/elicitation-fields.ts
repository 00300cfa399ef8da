import { initialText, type FieldKind, type FormField } from './form-fields.js';

/** One property of an MCP elicitation `requestedSchema` (a flat object of primitives, enums and multi-select lists). */
interface ElicitationProperty {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: string }> };
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

/** One field of an elicitation form, with what the CLI shows of it (`approvals list`, the questions of `run`). */
export interface ElicitationField extends FormField {
  /** The schema's type: `string`, `number`, `integer`, `boolean`, or `array` (a multiple choice). */
  type: string;
  /** What it accepts, in words: `text`, `a whole number from 1 to 100`, `one of: a, b`. */
  accepts: string;
  description?: string;
  /** The server's default: it applies when the field is left out (SEP-1034). */
  default?: unknown;
}

const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const date = /^\d{4}-\d{2}-\d{2}$/;

/** The fields of an elicitation form: string, number, integer, boolean, single and multiple choice, with required marks, defaults and checks. */
export function elicitationFields(schema: Record<string, unknown>): ElicitationField[] {
  const properties = (schema.properties ?? {}) as Record<string, ElicitationProperty>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([key, property]) => {
    const options = optionsOf(property);
    const kind: FieldKind = property.type === 'array' ? 'choices' : options ? 'choice'
      : property.type === 'boolean' ? 'boolean' : property.type === 'integer' ? 'integer' : property.type === 'number' ? 'number' : 'text';
    const accepts = acceptsOf(property, kind, options);
    return {
      key,
      label: property.title ?? key,
      kind,
      type: property.type ?? 'string',
      accepts,
      ...(property.description ? { description: property.description } : {}),
      ...(property.default !== undefined ? { default: property.default } : {}),
      initial: initialText(kind, property.default),
      required: required.has(key),
      hint: `${property.description ? `${property.description} · ` : ''}${accepts}`,
      ...(options ? { options } : {}),
      check: (value: unknown) => checkValue(property, value),
    };
  });
}

function optionsOf(property: ElicitationProperty): Array<{ value: string; label?: string }> | undefined {
  const titled = property.oneOf ?? property.items?.anyOf;
  if (titled) return titled.map((option) => ({ value: String(option.const), label: option.title }));
  const values = property.enum ?? property.items?.enum;
  return values?.map((value, index) => ({ value: String(value), label: property.enumNames?.[index] }));
}

function acceptsOf(property: ElicitationProperty, kind: FieldKind, options: ReturnType<typeof optionsOf>): string {
  if (options) return `${kind === 'choices' ? 'several of (comma-separated)' : 'one of'}: ${options.map((option) => (option.label ? `${option.value} (${option.label})` : option.value)).join(', ')}`;
  if (kind === 'boolean') return 'true or false';
  if (kind === 'number' || kind === 'integer') return `${kind === 'integer' ? 'a whole number' : 'a number'}${range(property.minimum, property.maximum)}`;
  return property.format ? (formats[property.format] ?? `text (${property.format})`) : 'text';
}

const formats: Record<string, string> = { email: 'an email address', uri: 'a URI', date: 'a date (YYYY-MM-DD)', 'date-time': 'a date and time (e.g. 2026-05-01T09:00:00Z)' };

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  return max !== undefined ? ` of at most ${max}` : '';
}

/** Ranges, lengths, counts and formats the schema asks for. */
function checkValue(property: ElicitationProperty, value: unknown): string | undefined {
  if (typeof value === 'number') {
    if ((property.minimum !== undefined && value < property.minimum) || (property.maximum !== undefined && value > property.maximum)) return `must be${range(property.minimum, property.maximum)} (got ${value})`;
  }
  if (Array.isArray(value)) {
    if (property.minItems !== undefined && value.length < property.minItems) return `choose at least ${property.minItems}`;
    if (property.maxItems !== undefined && value.length > property.maxItems) return `choose at most ${property.maxItems}`;
  }
  if (typeof value !== 'string') return undefined;
  if (property.minLength !== undefined && value.length < property.minLength) return `must be at least ${property.minLength} characters`;
  if (property.maxLength !== undefined && value.length > property.maxLength) return `must be at most ${property.maxLength} characters`;
  switch (property.format) {
    case 'email': return email.test(value) ? undefined : `"${value}" is not an email address`;
    case 'uri': return URL.canParse(value) ? undefined : `"${value}" is not a URI (e.g. https://example.com)`;
    case 'date': return date.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : `"${value}" is not a date (YYYY-MM-DD)`;
    case 'date-time': return Number.isNaN(Date.parse(value)) ? `"${value}" is not a date and time (e.g. 2026-05-01T09:00:00Z)` : undefined;
    default: return undefined;
  }
}
