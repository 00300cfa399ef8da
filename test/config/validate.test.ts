import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../source/config/default-config.js';
import { validateConfig, validateDefinition } from '../../source/config/validate.js';

const paths = (config: unknown) => validateConfig(config).map((issue) => issue.path);
const reasons = (config: unknown) => Object.fromEntries(validateConfig(config).map((issue) => [issue.path, issue.reason]));

describe('config.schema.json', () => {
  it('accepts the first-run default', () => {
    expect(validateConfig(defaultConfig())).toEqual([]);
  });

  it('accepts a full configuration with every section', () => {
    const full = {
      timezone: 'Europe/Berlin',
      model: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', name: 'llama3.1', api_key: '${OLLAMA_KEY}' },
      agent: { max_steps: 10, run_timeout_seconds: 120, workdir: '~/work', terminal: { approval: 'always', timeout_seconds: 30 } },
      approvals: { timeout_seconds: 60, headless: 'wait' },
      cron: { script_timeout_seconds: 30 },
      logging: { level: 'debug' },
      mcp_servers: {
        'my.api': {
          url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, ssl_verify: '~/ca.pem',
          client_cert: ['~/c.pem', '~/k.pem', '${PASS}'], timeout: 30, connect_timeout: 10, protocol: 'stateless',
          transport: 'sse', skip_preflight: true, keepalive_interval: 2, auth: 'oauth',
          oauth: { client_metadata_url: 'https://me.example/cm.json', cimd: false, user_agent: null, redirect_port: 9999 },
          tools: { include: ['read-*'], exclude: 'write', resources: 'yes', prompts: false },
          trust: 'mostly', elicitation: { enabled: false, timeout: 10 }, sampling: { enabled: true, max_tokens: 100 },
        },
        fs: { command: 'npx', args: ['-y', 'server-filesystem', '${workspaceFolder}'], env: { A: 'b' }, lifecycle: { idle_timeout_seconds: 60 }, max_lifetime_seconds: 0, enabled: false },
      },
      platforms: {
        webhook: { enabled: true, extra: { host: '0.0.0.0', port: 0, secret: ['old', 'new'], rate_limit: 5, max_body_bytes: 10, idempotency_ttl_seconds: 60, max_concurrent_runs: 2,
          routes: { 'gh-prs': { secret: 's', events: ['pull_request'], prompt: 'PR {number}', skills: ['review'], deliver: 'github_comment', deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' }, rate_limit: 3 } } } },
        telegram: { enabled: true, bot_token: '${TG}', home_channel: '-100', api_base_url: 'http://127.0.0.1:1' },
        discord: { enabled: false }, slack: { bot_token: 'x' },
        signal: { enabled: true, api_url: 'http://127.0.0.1:8080', number: '+1', home_channel: '+2' },
        sms: { enabled: true, account_sid: 'AC', auth_token: 't', from: '+1', home_channel: '+2', api_base_url: 'http://x' },
        email: { enabled: true, host: 'smtp', port: 587, secure: false, username: 'u', password: 'p', from: 'a@b', home_channel: 'c@d' },
      },
    };
    expect(validateConfig(full)).toEqual([]);
  });

  it('names the exact path and suggests the closest key for a typo', () => {
    expect(reasons({ platforms: { webhook: { extra: { prot: 1 } } } })).toEqual({
      'platforms.webhook.extra.prot': 'unknown key; did you mean "port"?',
    });
    expect(reasons({ modle: {} })['modle']).toBe('unknown key; did you mean "model"?');
    expect(reasons({ mcp_servers: { gh: { url: 'x', conect_timeout: 1 } } })['mcp_servers.gh.conect_timeout']).toBe('unknown key; did you mean "connect_timeout"?');
  });

  it('lists known keys when nothing is close', () => {
    expect(reasons({ approvals: { zzzzzzzz: 1 } })['approvals.zzzzzzzz']).toBe('unknown key; known keys: timeout_seconds, headless');
  });

  it('reports every problem at once', () => {
    const config = {
      timezone: 'Not/AZone',
      model: { provider: 'gpt' },
      platforms: { webhook: { enabled: 'yes', extra: { port: 70000, routes: { demo: { events: 'push', secret: 5 } } } } },
      mcp_servers: { 'my.server': { timeout: 'long', client_cert: ['only-one'] } },
    };
    expect(paths(config).sort()).toEqual([
      'mcp_servers["my.server"].client_cert',
      'mcp_servers["my.server"].timeout',
      'model.provider',
      'platforms.webhook.enabled',
      'platforms.webhook.extra.port',
      'platforms.webhook.extra.routes.demo.events',
      'platforms.webhook.extra.routes.demo.secret',
      'timezone',
    ]);
    const byPath = reasons(config);
    expect(byPath['model.provider']).toBe('must be one of "dry-run", "openai-compatible", "openai", "anthropic" (got "gpt")');
    expect(byPath['platforms.webhook.enabled']).toBe('must be a boolean (got string)');
    expect(byPath['platforms.webhook.extra.port']).toBe('must be <= 65535');
    expect(byPath['platforms.webhook.extra.routes.demo.secret']).toBe('must be a string or a list of strings (got number)');
    expect(byPath['timezone']).toContain('not an IANA time zone');
  });

  it('rejects route and server names outside the allowed pattern', () => {
    expect(paths({ platforms: { webhook: { extra: { routes: { 'bad name': {} } } } } })).toEqual(['platforms.webhook.extra.routes["bad name"]']);
    expect(paths({ mcp_servers: { 'a/b': { command: 'x' } } })).toEqual(['mcp_servers["a/b"]']);
  });

  it('keeps trust and protocol open strings (unknown values warn at connect, spec 2.1)', () => {
    expect(validateConfig({ mcp_servers: { a: { command: 'x', trust: 'weird', protocol: 'future' } } })).toEqual([]);
  });

  it('rejects unknown messaging platform keys and wrong types', () => {
    expect(paths({ platforms: { telegram: { token: 'x' }, email: { port: '25' } } }).sort()).toEqual(['platforms.email.port', 'platforms.telegram.token']);
  });

  it('validates a single definition with a prefix, for forms and the CLI', () => {
    expect(validateDefinition('job', { schedule: 'every 5m', prompt: 'hi', catch_up: 'always' }, ['job'])).toEqual([
      { path: 'job.catch_up', reason: 'must be one of "once", "skip" (got "always")' },
    ]);
    expect(validateDefinition('route', { events: ['push'] })).toEqual([]);
  });

  it('rejects a non-object config', () => {
    expect(paths([])).toEqual(['(root)']);
  });
});
