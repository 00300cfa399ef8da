import { describe, expect, it } from 'vitest';
import { changedKeys } from '../../source/config/changed-keys.js';
import { parseField, type FormField } from '../../source/operations/form-fields.js';
import { definitionFields, entryFromValues, issuesByField } from '../../source/ui/forms/schema-fields.js';

const field = (kind: FormField['kind'], extra: Partial<FormField> = {}): FormField => ({ key: 'k', label: 'k', kind, initial: '', ...extra });

describe('form fields', () => {
  it('parses text by kind; empty is unset unless required', () => {
    expect(parseField(field('integer'), '42')).toEqual({ ok: true, value: 42 });
    expect(parseField(field('integer'), '4.5')).toEqual({ ok: false, reason: 'must be a whole number (got 4.5)' });
    expect(parseField(field('number'), 'x')).toEqual({ ok: false, reason: 'must be a number (got "x")' });
    expect(parseField(field('boolean'), 'No')).toEqual({ ok: true, value: false });
    expect(parseField(field('list'), 'a, b,,c')).toEqual({ ok: true, value: ['a', 'b', 'c'] });
    expect(parseField(field('list'), '["a,b"]')).toEqual({ ok: true, value: ['a,b'] });
    expect(parseField(field('json'), '{"A":"1"}')).toEqual({ ok: true, value: { A: '1' } });
    expect(parseField(field('choice', { options: [{ value: 'hero-1', label: 'Superman' }] }), 'superman')).toEqual({ ok: true, value: 'hero-1' });
    expect(parseField(field('text'), '  ')).toEqual({ ok: true, value: undefined });
    expect(parseField(field('text', { required: true }), '')).toEqual({ ok: false, reason: 'is required' });
  });

  it('builds fields from the schema, masks secrets inside JSON and restores them on save', () => {
    const old = { command: 'node', env: { API_TOKEN: 'real-token', PLAIN: 'x' }, headers: { Authorization: 'Bearer abc', 'X-Upstream': 'Bearer def' } };
    const fields = definitionFields('mcp_server', old, (_key, description) => !description.startsWith('HTTP:'));
    const env = fields.find((f) => f.key === 'env')!;
    expect(env.initial).toBe('{"API_TOKEN":"••••","PLAIN":"x"}');
    expect(fields.find((f) => f.key === 'headers')!.initial).toBe('{"Authorization":"••••","X-Upstream":"Bearer ••••"}'); // set, so shown though HTTP-only
    expect(fields.some((f) => f.key === 'url')).toBe(false);
    const entry = entryFromValues(fields, { command: 'node', env: { API_TOKEN: '••••', PLAIN: 'y', NEW: 'z' }, headers: { Authorization: '••••', 'X-Upstream': 'Bearer ••••' } }, old);
    expect(entry).toEqual({ command: 'node', env: { API_TOKEN: 'real-token', PLAIN: 'y', NEW: 'z' }, headers: { Authorization: 'Bearer abc', 'X-Upstream': 'Bearer def' } });
  });

  it('puts config issues under the field of their key, naming the key', () => {
    const fields = definitionFields('route', {});
    expect(issuesByField([{ path: 'platforms.webhook.extra.routes.gh.rate_limit', reason: 'must be >= 1' }, { path: 'platforms.webhook.extra.routes.ghx.deliver', reason: 'no' }],
      ['platforms', 'webhook', 'extra', 'routes', 'gh'], fields)).toEqual({ rate_limit: 'platforms.webhook.extra.routes.gh.rate_limit: must be >= 1', '': 'platforms.webhook.extra.routes.ghx.deliver: no' });
  });

  it('names changed entries one by one (servers, routes, webhook settings) and other keys whole', () => {
    expect(changedKeys(
      { model: { provider: 'dry-run' }, mcp_servers: { a: { command: 'x' }, b: { command: 'y' } }, platforms: { webhook: { extra: { port: 1, routes: { gh: { deliver: 'log' } } } } } },
      { model: { provider: 'openai' }, mcp_servers: { a: { command: 'x' }, c: { command: 'z' } }, platforms: { webhook: { extra: { port: 2, routes: { gh: { deliver: 'local' } } } } } },
    )).toEqual(['model', 'mcp_servers.b', 'mcp_servers.c', 'platforms.webhook.extra.port', 'platforms.webhook.extra.routes.gh']);
  });
});
