import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../source/delivery/split.js';
import { checkGithubTarget, parseTarget, resolveTarget } from '../../source/delivery/targets.js';

const platforms = {
  telegram: { enabled: true, bot_token: 't', home_channel: '-100home' },
  discord: { enabled: true, bot_token: 'd' },
  slack: { enabled: false, bot_token: 's', home_channel: 'C1' },
  sms: { enabled: true, account_sid: 'AC1', auth_token: '${TWILIO_TOKEN}', from: '+1' },
  email: { enabled: true, host: 'smtp', from: 'a@b', home_channel: 'ops@example.com' },
};

const reasonOf = (target: string, extra: Record<string, string> = {}, context: 'webhook' | 'job' = 'job') => {
  const result = resolveTarget(target, extra, platforms, { for: context });
  return result.ok ? 'ok' : result.reason;
};

describe('delivery targets', () => {
  it('parses every target form', () => {
    expect(parseTarget('telegram:-100123:42')).toEqual({ ok: true, value: { kind: 'telegram', recipient: '-100123', threadId: '42' } });
    expect(parseTarget('email:ops@example.com')).toEqual({ ok: true, value: { kind: 'email', recipient: 'ops@example.com' } });
    expect(parseTarget('sms:+15551234')).toEqual({ ok: true, value: { kind: 'sms', recipient: '+15551234' } });
    expect(parseTarget('log')).toEqual({ ok: true, value: { kind: 'log' } });
  });

  it.each([
    ['pigeon', 'unknown delivery target "pigeon"; use one of: log, local, origin, github_comment, telegram, discord, slack, signal, sms, email (messaging targets take ":<recipient>")'],
    ['log:x', 'delivery target "log" takes no ":x" part'],
    ['telegram:', 'delivery target "telegram:" has an empty recipient'],
    ['telegram:1:topic', 'telegram target must be telegram:<chat_id>:<thread_id> with a numeric thread id (got "telegram:1:topic")'],
  ])('refuses %s', (target, reason) => {
    expect(reasonOf(target)).toBe(reason);
  });

  it('refuses disabled platforms, missing credentials, unset ${VAR}s and missing recipients, saying what to fix', () => {
    expect(reasonOf('slack')).toBe('platforms.slack is not enabled: set platforms.slack.enabled to true and its credentials (bot_token)');
    expect(reasonOf('signal:+1')).toBe('platforms.signal is not enabled: set platforms.signal.enabled to true and its credentials (api_url, number)');
    expect(reasonOf('sms:+2')).toBe('platforms.sms.auth_token refers to ${TWILIO_TOKEN}, which is not set (add it to $SWITCHBOARD_HOME/.env)');
    expect(reasonOf('discord')).toBe('no recipient for discord: write discord:<recipient>, set deliver_extra.chat_id, or set platforms.discord.home_channel');
    expect(reasonOf('origin', {}, 'webhook')).toContain('delivery target "origin" is for jobs');
    expect(reasonOf('github_comment', { repo: 'a/b' }, 'webhook')).toBe('github_comment needs deliver_extra.pr_number (e.g. repo: "{repository.full_name}", pr_number: "{number}")');
    // A job has no pull request to comment on: it is told so, not asked for a webhook template.
    expect(reasonOf('github_comment')).toBe('delivery target "github_comment" needs a pull request (deliver_extra.repo and pr_number, rendered from a webhook payload): a job has none; use log, local, origin or a messaging target');
  });

  it('takes the recipient from deliver_extra.chat_id, else the target string, else the home channel', () => {
    const recipient = (target: string, extra: Record<string, string> = {}) => {
      const result = resolveTarget(target, extra, platforms, { for: 'webhook' });
      return result.ok ? result.value.recipient : result.reason;
    };
    expect(recipient('telegram:-1002', { chat_id: '-1001' })).toBe('-1001');
    expect(recipient('telegram:-1002')).toBe('-1002');
    expect(recipient('telegram')).toBe('-100home');
    expect(recipient('email')).toBe('ops@example.com');
  });

  it('checks github_comment parameters after rendering', () => {
    expect(checkGithubTarget({ repo: 'octo/hello-world', pr_number: '12' })).toEqual({ ok: true, value: { repo: 'octo/hello-world', prNumber: 12 } });
    expect(checkGithubTarget({ repo: 'not a repo', pr_number: '1' })).toEqual({ ok: false, reason: 'deliver_extra.repo must be owner/name (got "not a repo"); gh was not run' });
    expect(checkGithubTarget({ repo: 'a/b', pr_number: '{number}' })).toEqual({ ok: false, reason: 'deliver_extra.pr_number must be a positive integer written in digits (got "{number}"); gh was not run' });
    expect(checkGithubTarget({ repo: 'a/b', pr_number: '0' }).ok).toBe(false);
  });
});

describe('splitMessage', () => {
  it('keeps short text whole and empty text as one empty chunk', () => {
    expect(splitMessage('short', 10)).toEqual(['short']);
    expect(splitMessage('', 10)).toEqual(['']);
  });

  it('cuts long text into chunks within the limit, at line or word boundaries', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(200)}`).join('\n');
    const chunks = splitMessage(text, 1000);
    expect(chunks.every((chunk) => chunk.length <= 1000)).toBe(true);
    expect(chunks.join('\n')).toBe(text);
    const words = splitMessage('word '.repeat(1000).trim(), 2000);
    expect(words.every((chunk) => chunk.length <= 2000 && !chunk.startsWith(' ') && !chunk.endsWith(' '))).toBe(true);
    expect(splitMessage('y'.repeat(4500), 2000).map((chunk) => chunk.length)).toEqual([2000, 2000, 500]);
  });
});

describe('route targets at config load', () => {
  it('lists every route whose target cannot work, with its key path', async () => {
    const { routeTargetIssues } = await import('../../source/delivery/check-config.js');
    expect(routeTargetIssues({
      platforms: {
        telegram: { enabled: true, bot_token: 't' },
        webhook: { enabled: true, extra: { routes: {
          ok: { deliver: 'telegram:1' },
          fine: {},
          chat: { deliver: 'telegram' },
          gh: { deliver: 'github_comment', deliver_extra: { repo: '{repository.full_name}' } },
          'bad.name': { deliver: 'fax' },
        } } },
      },
    })).toEqual([
      { path: 'platforms.webhook.extra.routes.chat.deliver', reason: 'no recipient for telegram: write telegram:<recipient>, set deliver_extra.chat_id, or set platforms.telegram.home_channel' },
      { path: 'platforms.webhook.extra.routes.gh.deliver', reason: expect.stringContaining('github_comment needs deliver_extra.pr_number') },
      { path: 'platforms.webhook.extra.routes["bad.name"].deliver', reason: expect.stringContaining('unknown delivery target "fax"') },
    ]);
  });
});
