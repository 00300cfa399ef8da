import { describe, expect, it } from 'vitest';
import { buildInstallLink, commandLine, MAX_CONFIG_BYTES, parseInstallLink } from '../../source/mcp/install-link.js';

const link = (name: string, config: string) => `switchboard://mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(config)}`;
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const kind = (text: string) => {
  const result = parseInstallLink(text);
  return result.ok ? 'ok' : result.error.kind;
};

describe('install deep link parser', () => {
  it('accepts a remote and a local server', () => {
    const remote = parseInstallLink(link('github', b64url({ url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } })));
    expect(remote).toEqual({ ok: true, value: { name: 'github', transport: 'http', config: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } } } });
    const local = parseInstallLink(link('files.v2', b64url({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] })));
    expect(local.ok && local.value.transport).toBe('stdio');
  });

  it('accepts standard base64 too, with + and / (even when + arrives as a space)', () => {
    const config = { url: 'https://x.example/mcp?q=>>>???', description: '~~~>>>' };
    const standard = Buffer.from(JSON.stringify(config)).toString('base64');
    expect(standard).toMatch(/[+/]/);
    expect(parseInstallLink(link('std', standard))).toMatchObject({ ok: true, value: { config } });
    expect(parseInstallLink(`switchboard://mcp/install?name=std&config=${standard}`)).toMatchObject({ ok: true, value: { config } });
  });

  it.each([
    ['https://example.com/mcp/install?name=a&config=e30', 'not_an_install_link'],
    ['switchboard://mcp/remove?name=a&config=e30', 'not_an_install_link'],
    ['nonsense', 'not_an_install_link'],
    [link('', b64url({ url: 'https://x' })), 'invalid_name'],
    [link('has space', b64url({ url: 'https://x' })), 'invalid_name'],
    [link('a/b', b64url({ url: 'https://x' })), 'invalid_name'],
    [link('x'.repeat(65), b64url({ url: 'https://x' })), 'invalid_name'],
    ['switchboard://mcp/install?name=ok', 'missing_config'],
    [link('ok', ''), 'missing_config'],
    [link('ok', 'not base64!'), 'bad_encoding'],
    [link('ok', 'ab-c+d'), 'bad_encoding'],
    [link('ok', Buffer.from([0xff, 0xfe, 0xfd]).toString('base64url')), 'bad_encoding'],
    [link('ok', b64url('{not json')), 'bad_encoding'],
    [link('ok', b64url([1, 2])), 'not_an_object'],
    [link('ok', b64url('"text"')), 'not_an_object'],
    [link('ok', b64url('null')), 'not_an_object'],
    [link('ok', b64url({ url: 'https://x', command: 'y' })), 'invalid_shape'],
    [link('ok', b64url({ args: ['x'] })), 'invalid_shape'],
    [link('ok', b64url({ command: '   ' })), 'invalid_shape'],
    [link('ok', b64url({ command: 42 })), 'invalid_shape'],
    [link('ok', b64url({ url: 'file:///etc/passwd' })), 'invalid_url'],
    [link('ok', b64url({ url: 'javascript:alert(1)' })), 'invalid_url'],
    [link('ok', b64url({ url: 'not a url' })), 'invalid_url'],
    [link('ok', b64url({ url: 'https://x', timeout: 'soon' })), 'invalid_config'],
  ])('%s -> %s', (text, expected) => {
    expect(kind(text)).toBe(expected);
  });

  it('lists unknown keys with suggestions', () => {
    const result = parseInstallLink(link('ok', b64url({ url: 'https://x', timout: 5, colour: 'red' })));
    expect(result.ok).toBe(false);
    if (result.ok || result.error.kind !== 'invalid_config') throw new Error('expected invalid_config');
    expect(result.error.unknownKeys).toEqual(['timout', 'colour']);
    expect(result.error.message).toContain('config.timout: unknown key; did you mean "timeout"?');
  });

  it('holds the 32 KiB limit on both sides, and refuses oversized text before decoding', () => {
    const entry = (bytes: number) => {
      const base = JSON.stringify({ url: 'https://x.example/mcp', description: '' });
      return JSON.stringify({ url: 'https://x.example/mcp', description: 'd'.repeat(bytes - base.length) });
    };
    expect(Buffer.byteLength(entry(MAX_CONFIG_BYTES))).toBe(MAX_CONFIG_BYTES);
    expect(kind(link('edge', b64url(entry(MAX_CONFIG_BYTES))))).toBe('ok');
    expect(kind(link('edge', b64url(entry(MAX_CONFIG_BYTES + 1))))).toBe('payload_too_large');
    const huge = parseInstallLink(link('edge', 'A'.repeat(10_000_000)));
    expect(huge).toMatchObject({ ok: false, error: { kind: 'payload_too_large', message: expect.stringContaining('10000000 characters encoded') } });
  });

  it('round-trips: link -> parse -> the same entry', () => {
    const entries = [
      { command: 'node', args: ['server.js', '--name', "it's"], env: { DEBUG: '1' }, trust: 'untrusted', tools: { include: ['read_*'] } },
      { url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'ops' }, ssl_verify: false, timeout: 30, auth: 'oauth', oauth: { cimd: false } },
    ];
    for (const config of entries) {
      const parsed = parseInstallLink(buildInstallLink('round.trip_1', config));
      expect(parsed).toMatchObject({ ok: true, value: { name: 'round.trip_1', config } });
    }
  });

  it('shows the exact command line, quoted for a shell', () => {
    expect(commandLine({ command: 'npx', args: ['-y', 'pkg@1', 'has space', "it's"] })).toBe("npx -y pkg@1 'has space' 'it'\\''s'");
    expect(commandLine({ url: 'https://x' })).toBeUndefined();
  });
});
