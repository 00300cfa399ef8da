import { describe, expect, it } from 'vitest';
import { fnmatch, isToolSelected, mcpToolName, sanitizeName } from '../../source/mcp/names.js';
import { truncate } from '../../source/mcp/results.js';

describe('tool names (spec 2.5)', () => {
  it('sanitizes both parts: my-api + list-items.v2', () => {
    expect(mcpToolName('my-api', 'list-items.v2')).toBe('mcp__my_api__list_items_v2');
    expect(sanitizeName('a b/c:d_é9')).toBe('a_b_c_d__9');
  });
});

describe('fnmatch', () => {
  it.each([
    ['read_file', 'read_*', true],
    ['read_file', 'read_?ile', true],
    ['list-items.v2', 'list-items.v?', true],
    ['list-items.v2', 'list-items.v[12]', true],
    ['list-items.v3', 'list-items.v[!12]', true],
    ['list-items.v2', 'list-items.v[!12]', false],
    ['list-itemsXv2', 'list-items.v2', false],
    ['write_file', 'read_*', false],
    ['a+b', 'a+b', true],
    ['x', '[', false],
  ])('%s ~ %s = %s', (name, pattern, expected) => expect(fnmatch(name, pattern)).toBe(expected));
});

describe('include / exclude (spec 2.2)', () => {
  const names = ['read_file', 'write_file', 'list-items.v2', 'delete'];
  const selected = (policy: { include?: string[]; exclude?: string[] }) => names.filter((n) => isToolSelected(n, policy));
  it('no filter: everything', () => expect(selected({})).toEqual(names));
  it('include only lists exact names and globs over the original names', () => expect(selected({ include: ['list-items.*', 'read_file'] })).toEqual(['read_file', 'list-items.v2']));
  it('empty include registers none', () => expect(selected({ include: [] })).toEqual([]));
  it('exclude only removes the listed', () => expect(selected({ exclude: ['*_file'] })).toEqual(['list-items.v2', 'delete']));
  it('include wins over exclude', () => expect(selected({ include: ['read_file', 'delete'], exclude: ['read_file'] })).toEqual(['read_file', 'delete']));
  it('filters see original names, not sanitized ones', () => expect(selected({ include: ['list_items_v2'] })).toEqual([]));
});

describe('result truncation', () => {
  it('keeps short text and marks cut text at 64 KiB', () => {
    expect(truncate('short')).toBe('short');
    const cut = truncate('é'.repeat(40_000));
    expect(cut).toMatch(/\n\[truncated: the result was 80000 bytes, only the first 65536 are shown\]$/);
    expect(cut).not.toContain('\uFFFD');
  });
});
