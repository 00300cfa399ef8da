import { describe, expect, it } from 'vitest';
import { getAt, parseCliValue, setAt } from '../../source/config/edit.js';
import { formatKeyPath, parseKeyPath } from '../../source/config/key-path.js';

describe('key paths', () => {
  it.each([
    ['platforms.webhook.extra.port', ['platforms', 'webhook', 'extra', 'port']],
    ['mcp_servers["my.server"].url', ['mcp_servers', 'my.server', 'url']],
    ['mcp_servers.fs.args[1]', ['mcp_servers', 'fs', 'args', '1']],
    ['platforms.webhook.extra.routes.gh-prs.secret', ['platforms', 'webhook', 'extra', 'routes', 'gh-prs', 'secret']],
  ])('%s round-trips', (text, segments) => {
    expect(parseKeyPath(text)).toEqual(segments);
    expect(formatKeyPath(segments)).toBe(text);
  });

  it.each(['', '.a', 'a..b', 'a[', 'a["x]', 'a b'])('rejects %j', (text) => {
    expect(parseKeyPath(text)).toBeUndefined();
  });
});

describe('config edits', () => {
  const config = { a: { b: 1, list: ['x', 'y'] } };

  it('gets, sets and removes without touching the original', () => {
    expect(getAt(config, ['a', 'list', '1'])).toBe('y');
    expect(getAt(config, ['a', 'missing', 'deep'])).toBeUndefined();
    expect(setAt(config, ['a', 'c', 'd'], true)).toEqual({ a: { b: 1, list: ['x', 'y'], c: { d: true } } });
    expect(setAt(config, ['a', 'list', '0'], 'z')).toEqual({ a: { b: 1, list: ['z', 'y'] } });
    expect(setAt(config, ['a', 'b'], undefined)).toEqual({ a: { list: ['x', 'y'] } });
    expect(config).toEqual({ a: { b: 1, list: ['x', 'y'] } });
  });

  it('parses values as JSON, else as text', () => {
    expect(parseCliValue('8645')).toBe(8645);
    expect(parseCliValue('{"a":[1]}')).toEqual({ a: [1] });
    expect(parseCliValue('Europe/Paris')).toBe('Europe/Paris');
    expect(parseCliValue('"8645"')).toBe('8645');
  });
});
