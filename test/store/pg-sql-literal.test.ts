import { describe, expect, it } from 'vitest';
import { withLiterals } from '../../source/store/pg/sql-literal.js';

describe('a statement with its values written in', () => {
  it('quotes text (doubling quotes, and E-quoting backslashes), numbers, booleans and null', () => {
    expect(withLiterals('UPDATE t SET a = $1, b = $2, c = $3, d = $4 WHERE e = $5', ["it's", 'a\\b', 12.5, true, null]))
      .toBe(`UPDATE t SET a = 'it''s', b =  E'a\\\\b', c = '12.5', d = 'true' WHERE e = NULL`);
  });

  it('tells $1 from $10', () => {
    expect(withLiterals(Array.from({ length: 10 }, (_, index) => `$${index + 1}`).join(','), Array.from({ length: 10 }, (_, index) => index + 1)))
      .toBe("'1','2','3','4','5','6','7','8','9','10'");
  });

  it('declines values it does not write (arrays, buffers, objects) and names a parameter without a value', () => {
    expect(withLiterals('SELECT $1', [[1, 2]])).toBeUndefined();
    expect(withLiterals('SELECT $1', [Buffer.from('x')])).toBeUndefined();
    expect(withLiterals('SELECT $1', [{}])).toBeUndefined();
    expect(() => withLiterals('SELECT $1, $2', ['a'])).toThrow('statement parameter $2 has no value (1 given)');
  });
});

describe('quoting', () => {
  it('matches pg.escapeLiteral', async () => {
    const { default: pg } = await import('pg');
    for (const text of ['', 'plain', "it's", 'a\\b', "\\'", "''\\\\", 'new\nline', '‘unicode’ ✓']) expect(withLiterals('$1', [text])).toBe(pg.escapeLiteral(text));
  });
});
