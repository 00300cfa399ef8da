/**
 * Values as quoted SQL literals, for statements sent several in one simple query
 * (carried-writes.ts). A quoted literal has no type of its own, as a parameter sent by `pg` has
 * none: PostgreSQL gives it the type the statement needs, as it does a parameter's. Only the values
 * our record writes use (text, numbers, booleans, null) are written; for any other (arrays,
 * buffers, objects) the answer is undefined and the statement goes as it is.
 */
export function literalsOf(values: readonly unknown[]): string[] | undefined {
  const literals: string[] = [];
  for (const value of values) {
    const literal = literalOf(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return literals;
}

/** `sql` with its `$n` parameters written in as literals (undefined as for literalsOf). */
export function withLiterals(sql: string, values: readonly unknown[] = []): string | undefined {
  const literals = literalsOf(values);
  if (!literals) return undefined;
  return sql.replace(/\$(\d+)/g, (_, index: string) => {
    const literal = literals[Number(index) - 1];
    if (literal === undefined) throw new RangeError(`statement parameter $${index} has no value (${values.length} given)`);
    return literal;
  });
}

/** Whether every value can be written as a literal, without writing any (a check before the work). */
export const writableAsLiterals = (values: readonly unknown[]): boolean =>
  values.every((value) => value === null || value === undefined || ['string', 'number', 'bigint', 'boolean'].includes(typeof value));

function literalOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return `'${String(value)}'`;
  return undefined;
}

/**
 * pg's escapeLiteral, in the engine's own string search: that one walks the text a character at a
 * time in JavaScript, 25 µs for a 3 kB prompt against 0.2 here, and a run writes several.
 * Backslashes are doubled inside E'' so that the text means the same whatever
 * standard_conforming_strings says.
 */
function quoted(text: string): string {
  const inner = text.replaceAll("'", "''");
  return text.includes('\\') ? ` E'${inner.replaceAll('\\', '\\\\')}'` : `'${inner}'`;
}
