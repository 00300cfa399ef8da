import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets } from '../../source/config/mask.js';

describe('maskSecrets', () => {
  it('masks secret-named keys, bearer header values and credential env vars; keeps ${VAR} references', () => {
    const config = {
      model: { api_key: 'sk-live-123', name: 'gpt' },
      platforms: { webhook: { extra: { secret: ['a', 'b'], routes: { demo: { secret: 'route-secret', prompt: 'x' } } } }, telegram: { bot_token: '123:abc' }, sms: { auth_token: 'tw' }, email: { password: 'pw' } },
      mcp_servers: {
        gh: { headers: { Authorization: 'Bearer ghp_abc', 'X-Other': 'Token bearer xyz', Accept: 'json' }, env: { GITHUB_TOKEN: 'ghp', DEBUG: '1' }, oauth: { client_secret: 'cs' } },
        ref: { headers: { Authorization: 'Bearer ${TOKEN}' }, env: { API_KEY: '${API_KEY}' } },
      },
    };
    const masked = maskSecrets(config);
    expect(masked.model).toEqual({ api_key: MASK, name: 'gpt' });
    expect(masked.platforms.webhook.extra.secret).toEqual([MASK, MASK]);
    expect(masked.platforms.webhook.extra.routes.demo).toEqual({ secret: MASK, prompt: 'x' });
    expect(masked.platforms.telegram.bot_token).toBe(MASK);
    expect(masked.platforms.sms.auth_token).toBe(MASK);
    expect(masked.platforms.email.password).toBe(MASK);
    expect(masked.mcp_servers.gh.headers).toEqual({ Authorization: MASK, 'X-Other': `Token bearer ${MASK}`, Accept: 'json' });
    expect(masked.mcp_servers.gh.env).toEqual({ GITHUB_TOKEN: MASK, DEBUG: '1' });
    expect(masked.mcp_servers.gh.oauth.client_secret).toBe(MASK);
    expect(masked.mcp_servers.ref.env.API_KEY).toBe('${API_KEY}');
    expect(JSON.stringify(masked)).not.toMatch(/sk-live|ghp_|route-secret|123:abc|"pw"|"cs"/);
    expect(config.model.api_key).toBe('sk-live-123');
  });

  it('masks hyphenated credential headers and the passphrase of client_cert', () => {
    const masked = maskSecrets({ mcp_servers: { gl: {
      headers: { 'X-API-Key': 'sk-abc', 'PRIVATE-TOKEN': 'glpat-xyz', 'X-Request-Source': 'switchboard' },
      client_cert: ['c.pem', 'k.pem', 'hunter2'],
    } } });
    expect(masked.mcp_servers.gl.headers).toEqual({ 'X-API-Key': MASK, 'PRIVATE-TOKEN': MASK, 'X-Request-Source': 'switchboard' });
    expect(masked.mcp_servers.gl.client_cert).toEqual(['c.pem', 'k.pem', MASK]);
  });

  it('keeps the message and stack of errors', () => {
    const error = Object.assign(new Error('boom'), { code: 'E_X', token: 't0p' });
    const masked = maskSecrets({ err: error }) as unknown as { err: Record<string, unknown> };
    expect(masked.err.message).toBe('boom');
    expect(masked.err.code).toBe('E_X');
    expect(masked.err.token).toBe(MASK);
    expect(String(masked.err.stack)).toContain('boom');
  });
});
