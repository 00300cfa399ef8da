import type { ListRow, RowSource } from './components/ListView.js';

/**
 * A pane's filter (F): words separated by spaces, all of which must match (case ignored).
 * A word matches anywhere in the row's text; `field:value` matches in one column only (the pane
 * names its fields: `outcome:401`, `route:github`, `status:failed`, `level:error`); a leading `!`
 * keeps the rows that do not match (`!ignored`).
 */
export interface RowFilter {
  /** The rows that match, in their order; the source itself when the filter is empty. */
  rows: RowSource;
  /** A field the pane does not have: nothing matches, and this says which fields there are. */
  error?: string;
}

interface Term { field?: string; value: string; negated: boolean }

export function parseFilter(text: string): Term[] {
  return text.trim().split(/\s+/).filter(Boolean).flatMap((word) => {
    const negated = word.startsWith('!');
    const body = negated ? word.slice(1) : word;
    const colon = body.indexOf(':');
    // `12:30` (a time) is a word, not a field: fields are names.
    const field = colon > 0 && /^[a-z]+$/i.test(body.slice(0, colon)) ? body.slice(0, colon).toLowerCase() : undefined;
    const value = (field ? body.slice(colon + 1) : body).toLowerCase();
    return value === '' && !field ? [] : [{ ...(field ? { field } : {}), value, negated }];
  });
}

const textOf = (row: ListRow) => (row.parts ? row.parts.map((part) => part.text).join('') : row.text).toLowerCase();

function matches(row: ListRow, terms: readonly Term[]): boolean {
  let text: string | undefined;
  return terms.every((term) => {
    const where = term.field ? row.fields?.[term.field]?.toLowerCase() : (text ??= textOf(row));
    const hit = where !== undefined && where.includes(term.value);
    return hit !== term.negated;
  });
}

/** The rows of `source` that match `text`; every row is read once (a pane holds at most a few thousand). */
export function filterRows(source: RowSource, text: string, fields: readonly string[]): RowFilter {
  const terms = parseFilter(text);
  if (terms.length === 0) return { rows: source };
  const unknown = terms.find((term) => term.field && !fields.includes(term.field));
  if (unknown) {
    const known = fields.length > 0 ? `fields here: ${fields.map((field) => `${field}:`).join(' ')}` : 'this pane has no fields, only words';
    return { rows: { length: 0, at: () => undefined }, error: `no field "${unknown.field}" (${known})` };
  }
  const kept: ListRow[] = [];
  for (let index = 0; index < source.length; index += 1) {
    const row = source.at(index);
    if (row && matches(row, terms)) kept.push(row);
  }
  return { rows: { length: kept.length, at: (index) => kept[index], keyIndex: (key) => kept.findIndex((row) => row.key === key) } };
}
