import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../source/mcp/server-config.js';
import { validateConfig } from '../../source/config/validate.js';

describe('resolveMcpServers (spec 2.1)', () => {
  it('applies the defaults', () => {
    const { servers, warnings } = resolveMcpServers({ mcp_servers: { a: { command: 'node' }, b: { url: 'http://x/mcp' } } });
    expect(warnings).toEqual([]);
    expect(servers[0]).toMatchObject({
      name: 'a', transport: 'stdio', enabled: true, args: [], env: {}, timeoutMs: 300_000, connectTimeoutMs: 60_000, protocol: 'auto',
      parallelSafe: false, keepaliveMs: 180_000, idleTimeoutMs: 0, maxLifetimeMs: 0, trust: 'full',
      tools: { include: undefined, exclude: undefined, resources: true, prompts: true },
      elicitation: { enabled: true, timeoutMs: 300_000 }, sampling: { enabled: false },
    });
    expect(servers[1]).toMatchObject({ transport: 'streamable-http', sslVerify: true, skipPreflight: false, headers: {} });
  });

  it('reads every key, with lifecycle, tilde paths and the keepalive floor', () => {
    const entry = {
      url: 'https://h/sse', headers: { Authorization: 'Bearer k' }, transport: 'sse', ssl_verify: '~/ca.pem', client_cert: '~/c.pem', client_key: '~/k.pem',
      enabled: false, timeout: 7, connect_timeout: 3, protocol: 'stateless', supports_parallel_tool_calls: true, skip_preflight: true, keepalive_interval: 2,
      tools: { include: 'a*', exclude: ['b'], resources: 'off', prompts: 0 }, auth: 'oauth' as const, trust: 'untrusted',
      elicitation: { enabled: false, timeout: 9 }, sampling: { enabled: true, model: 'm', max_tokens: 10, max_requests_per_minute: 2 },
    };
    expect(validateConfig({ mcp_servers: { s: entry } })).toEqual([]);
    const [s] = resolveMcpServers({ mcp_servers: { s: entry } }, '/home/u').servers;
    expect(s).toMatchObject({
      transport: 'sse', headers: { Authorization: 'Bearer k' }, sslVerify: path.join('/home/u', 'ca.pem'),
      clientCert: { certFile: path.join('/home/u', 'c.pem'), keyFile: path.join('/home/u', 'k.pem'), keyKey: 'client_key' },
      enabled: false, timeoutMs: 7000, connectTimeoutMs: 3000, protocol: 'stateless', parallelSafe: true, skipPreflight: true, keepaliveMs: 5000,
      tools: { include: ['a*'], exclude: ['b'], resources: false, prompts: false }, auth: 'oauth', trust: 'untrusted',
      elicitation: { enabled: false, timeoutMs: 9000 }, sampling: { enabled: true, model: 'm', maxTokens: 10, maxRequestsPerMinute: 2 },
    });
    const [stdio] = resolveMcpServers({ mcp_servers: { t: { command: 'x', args: ['1'], env: { A: 'b' }, lifecycle: { idle_timeout_seconds: 4, max_lifetime_seconds: 8 } } } }).servers;
    expect(stdio).toMatchObject({ args: ['1'], env: { A: 'b' }, idleTimeoutMs: 4000, maxLifetimeMs: 8000 });
    const [top] = resolveMcpServers({ mcp_servers: { t: { command: 'x', idle_timeout_seconds: 1, lifecycle: { idle_timeout_seconds: 4 } } } }).servers;
    expect(top!.idleTimeoutMs).toBe(1000);
  });

  it('client_cert list forms', () => {
    const home = os.homedir();
    const { servers } = resolveMcpServers({ mcp_servers: {
      pair: { url: 'https://h', client_cert: ['~/c', '/k'] },
      triple: { url: 'https://h', client_cert: ['/c', '/k', 'pw'] },
    } });
    expect(servers[0]!.clientCert).toEqual({ certFile: path.join(home, 'c'), keyFile: '/k', keyKey: 'client_cert', passphrase: undefined });
    expect(servers[1]!.clientCert).toEqual({ certFile: '/c', keyFile: '/k', keyKey: 'client_cert', passphrase: 'pw' });
  });

  it('unknown protocol and trust values warn naming the server; trust then means untrusted', () => {
    const { servers, warnings } = resolveMcpServers({ mcp_servers: { odd: { command: 'x', protocol: 'v9', trust: 'mostly' }, none: {} } });
    expect(servers.map((s) => [s.name, s.protocol, s.trust])).toEqual([['odd', 'auto', 'untrusted']]);
    expect(warnings).toEqual([
      'server odd: protocol "v9" is not one of auto, stateless, legacy; using auto',
      'server odd: trust "mostly" is not "full" or "untrusted"; treated as untrusted',
      'server none: needs "command" (stdio) or "url" (HTTP); skipped',
    ]);
  });

  it('a changed entry changes its fingerprint; key order does not', () => {
    const a = resolveMcpServers({ mcp_servers: { s: { command: 'x', args: ['1'] } } }).servers[0]!.fingerprint;
    const b = resolveMcpServers({ mcp_servers: { s: { args: ['1'], command: 'x' } } }).servers[0]!.fingerprint;
    const c = resolveMcpServers({ mcp_servers: { s: { command: 'x', args: ['2'] } } }).servers[0]!.fingerprint;
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });
});
