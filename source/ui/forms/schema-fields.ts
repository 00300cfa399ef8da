import { parseKeyPath } from '../../config/key-path.js';
import { isSecretKey, MASK, maskSecrets } from '../../config/mask.js';
import { loadSchema } from '../../config/schema.js';
import type { ConfigIssue } from '../../config/validate.js';
import { initialText, type FieldErrors, type FieldKind, type FormField } from '../../operations/form-fields.js';

interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: SchemaNode[];
  items?: SchemaNode;
  description?: string;
}

const FORM_MASK = '••••';

/**
 * One field per key of a config.schema.json definition (`$defs/<name>`), in schema order: keys
 * `applies` rejects are left out unless the entry sets them. Kinds follow the schema types; secrets
 * are masked, and objects are JSON with their secrets masked.
 */
export function definitionFields(definition: 'mcp_server' | 'route' | 'job', entry: Readonly<Record<string, unknown>>, applies: (key: string, description: string) => boolean = () => true): FormField[] {
  const properties = ((loadSchema().$defs as Record<string, { properties: Record<string, SchemaNode> }>)[definition]!).properties;
  const fields: FormField[] = [];
  for (const [key, node] of Object.entries(properties)) {
    const description = node.description ?? '';
    if (!applies(key, description) && entry[key] === undefined) continue;
    // A secret that is only a `${VAR}` reference names where the secret lives: shown and edited as text.
    const reference = typeof entry[key] === 'string' && /^\$\{[^{}]+\}$/.test(entry[key]);
    const kind = reference ? 'text' : kindOf(key, node);
    fields.push({
      key,
      label: key,
      kind,
      initial: kind === 'json' ? (entry[key] === undefined ? '' : JSON.stringify(maskForForm(entry[key], key))) : initialText(kind, entry[key]),
      hint: kind === 'secret' ? `${description} Kept unless retyped.` : description,
      ...(kind === 'choice' ? { options: node.enum!.map((value) => ({ value: String(value) })) } : {}),
    });
  }
  return fields;
}

function kindOf(key: string, node: SchemaNode): FieldKind {
  if (isSecretKey(key)) return 'secret';
  if (node.enum && node.type === 'string') return 'choice';
  switch (node.type) {
    case 'string': return 'text';
    case 'number': return 'number';
    case 'integer': return 'integer';
    case 'boolean': return 'boolean';
    case 'array': return node.items?.type === 'string' ? 'list' : 'json';
    default: return 'json';
  }
}

/** The entry with the form's values: empty fields remove their key, an untouched secret keeps its value, masked JSON parts are restored. */
export function entryFromValues(fields: readonly FormField[], values: Readonly<Record<string, unknown>>, old: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const entry: Record<string, unknown> = { ...old };
  for (const field of fields) {
    let value = values[field.key];
    if (field.kind === 'secret' && value === undefined) value = old[field.key];
    if (field.kind === 'json') value = restoreMasked(value, old[field.key], field.key);
    if (value === undefined) delete entry[field.key];
    else entry[field.key] = value;
  }
  return entry;
}

/** Secrets inside a value as the form shows them: `••••` (a `${VAR}` reference is not a secret and stays readable). */
function maskForForm(value: unknown, key: string): unknown {
  const masked = maskSecrets({ [key]: value })[key];
  return JSON.parse(JSON.stringify(masked ?? null).replaceAll(MASK, FORM_MASK));
}

/** Where the edited value still holds a masked secret as shown, the real secret goes back in. */
function restoreMasked(edited: unknown, old: unknown, key: string): unknown {
  const walk = (next: unknown, shown: unknown, before: unknown): unknown => {
    if (typeof next === 'string') return typeof before === 'string' && next === shown && shown !== before ? before : next;
    if (Array.isArray(next)) return next.map((item, index) => walk(item, Array.isArray(shown) ? shown[index] : undefined, Array.isArray(before) ? before[index] : undefined));
    if (next !== null && typeof next === 'object') {
      const shownObject = (shown ?? {}) as Record<string, unknown>;
      const beforeObject = (before ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(next).map(([name, item]) => [name, walk(item, shownObject[name], beforeObject[name])]));
    }
    return next;
  };
  return old === undefined ? edited : walk(edited, maskForForm(old, key), old);
}

/** Config issues under the entry at `segments`, by field key; the others (and those of unknown keys) go to ''. The text names the config key. */
export function issuesByField(issues: readonly ConfigIssue[], segments: readonly string[], fields: readonly FormField[]): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, text: string) => { errors[key] = errors[key] ? `${errors[key]}; ${text}` : text; };
  for (const issue of issues) {
    const path = parseKeyPath(issue.path);
    const inside = path && segments.every((segment, index) => path[index] === segment) ? path.slice(segments.length) : undefined;
    const key = inside?.[0];
    add(key !== undefined && fields.some((field) => field.key === key) ? key : '', `${issue.path}: ${issue.reason}`);
  }
  return errors;
}
