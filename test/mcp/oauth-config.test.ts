import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../source/config/validate.js';
import { checkClientMetadataUrl, clientMetadataDocument, overridesSet, resolveOAuth } from '../../source/mcp/oauth-config.js';
import { fromSaved, toSaved } from '../../source/mcp/token-store.js';

describe('client metadata document URL (spec 5.3 item 3)', () => {
  it.each([
    ['https://ops.example.com/switchboard/client.json', undefined],
    ['https://ops.example.com/c.json?v=2', undefined],
    ['http://ops.example.com/c.json', 'must use https'],
    ['ops.example.com/c.json', 'is not a URL'],
    ['https://ops.example.com', 'needs a path'],
    ['https://ops.example.com/?x=1', 'needs a path'],
    ['https://ops.example.com/c.json#frag', 'must not have a fragment'],
    ['https://user@ops.example.com/c.json', 'must not carry userinfo'],
    ['https://ops.example.com/./c.json', 'must not contain "." or ".." path segments'],
    ['https://ops.example.com/a/%2E%2E/c.json', 'must not contain "." or ".." path segments'],
  ])('%s', (url, why) => {
    const checked = checkClientMetadataUrl(url);
    if (why === undefined) expect(checked).toEqual({ ok: true, value: url });
    else expect(checked).toEqual({ ok: false, reason: expect.stringContaining(why) });
  });

  it('config validation names the key; ${VAR} references wait for interpolation', () => {
    const issues = validateConfig({ mcp_servers: { a: { url: 'https://m.example/mcp', auth: 'oauth', oauth: { client_metadata_url: 'https://x.example/' } }, b: { url: 'https://m.example/mcp', auth: 'oauth', oauth: { client_metadata_url: '${DOC_URL}' } } } });
    expect(issues).toEqual([{ path: 'mcp_servers.a.oauth.client_metadata_url', reason: expect.stringContaining('needs a path') }]);
  });

  it('the document declares the ten loopback redirect URIs and its own URL as client_id', () => {
    const doc = clientMetadataDocument('https://ops.example.com/c.json');
    expect(doc.client_id).toBe('https://ops.example.com/c.json');
    expect(doc.redirect_uris).toEqual([27890, 27891, 27892, 27893, 27894].flatMap((p) => [`http://127.0.0.1:${p}/callback`, `http://localhost:${p}/callback`]));
  });
});

describe('oauth overrides and token expiry', () => {
  it('empty user_agent is ignored; each override is reported by its key', () => {
    expect(resolveOAuth({ user_agent: '', cimd: false })).toMatchObject({ userAgent: undefined, cimd: false });
    expect(overridesSet(resolveOAuth({ client_metadata_url: 'https://x.example/c.json' }))).toEqual([]);
    expect(overridesSet(resolveOAuth({ client_id: 'id', redirect_port: 9000, token_endpoint_auth_method: 'none' }))).toEqual(['client_id', 'token_endpoint_auth_method', 'redirect_port']);
  });

  it('expires_in becomes an absolute expires_at and back', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const saved = toSaved({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }, now);
    expect(saved).toEqual({ access_token: 'a', token_type: 'Bearer', expires_at: '2026-01-01T01:00:00.000Z' });
    expect(fromSaved(saved, now + 600_000)).toEqual({ access_token: 'a', token_type: 'Bearer', expires_in: 3000 });
    expect(fromSaved(saved, now + 7_200_000).expires_in).toBe(0);
  });
});
