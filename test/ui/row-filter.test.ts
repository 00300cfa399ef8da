import { describe, expect, it } from 'vitest';
import type { ListRow } from '../../source/ui/components/ListView.js';
import { filterRows, parseFilter } from '../../source/ui/row-filter.js';

const rows: ListRow[] = [
  { key: 'a', text: '', parts: [{ text: 'gh issues d-1 ' }, { text: 'accepted' }], fields: { route: 'gh', outcome: 'accepted' } },
  { key: 'b', text: '', parts: [{ text: 'gh issues d-2 ' }, { text: '401 bad signature' }], fields: { route: 'gh', outcome: '401' } },
  { key: 'c', text: 'gl push d-3 ignored', fields: { route: 'gitlab-main', outcome: 'ignored' } },
];
const keysOf = (text: string) => {
  const { rows: kept } = filterRows(rows, text, ['route', 'outcome']);
  return Array.from({ length: kept.length }, (_unused, index) => kept.at(index)!.key);
};

describe('pane filter', () => {
  it('parses words, field:value and !negations; a time is a word', () => {
    expect(parseFilter('  outcome:401  !Ignored 12:30 ')).toEqual([
      { field: 'outcome', value: '401', negated: false },
      { value: 'ignored', negated: true },
      { value: '12:30', negated: false },
    ]);
  });

  it('keeps the rows every term matches, case ignored, in their order', () => {
    expect(keysOf('')).toEqual(['a', 'b', 'c']);
    expect(keysOf('GH')).toEqual(['a', 'b']);
    expect(keysOf('d- issues')).toEqual(['a', 'b']);
  });

  it('matches a field only in its column, and negates with !', () => {
    expect(keysOf('outcome:401')).toEqual(['b']);
    expect(keysOf('route:git')).toEqual(['c']);
    expect(keysOf('!outcome:accepted')).toEqual(['b', 'c']);
    expect(keysOf('issues !signature')).toEqual(['a']);
    // The text "accepted" is nowhere in row c's route, so a field term does not search the text.
    expect(keysOf('route:accepted')).toEqual([]);
  });

  it('names the fields there are when a term uses another one', () => {
    const result = filterRows(rows, 'colour:red', ['route', 'outcome']);
    expect(result.rows.length).toBe(0);
    expect(result.error).toBe('no field "colour" (fields here: route: outcome:)');
  });
});
