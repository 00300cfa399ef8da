import { describe, expect, it } from 'vitest';
import { checkGithubTarget, resolveTarget } from '../../source/delivery/targets.js';
import { platformSettings } from '../../source/delivery/platforms.js';

const discord = platformSettings({ platforms: { discord: { enabled: true, bot_token: 'x'.repeat(20) } } } as never);

describe('rendered values never reach another API path or a gh option', () => {
  it('discord channel and thread ids must be numeric: ".." and paths are refused before any request', () => {
    for (const chat of ['..', '.', '123/../../users/@me', 'abc']) {
      const checked = resolveTarget('discord', { chat_id: chat }, discord, { for: 'webhook' });
      expect(checked.ok, chat).toBe(false);
    }
    expect(resolveTarget('discord', { chat_id: '123', thread_id: '..' }, discord, { for: 'webhook' }).ok).toBe(false);
    expect(resolveTarget('discord', { chat_id: '112233445566778899' }, discord, { for: 'webhook' }).ok).toBe(true);
  });

  it('gh repo must be owner/name not starting with - or .; the PR a plain positive safe integer', () => {
    for (const repo of ['--help/x', 'octo/--version', '../x', 'a/b/c', 'octo']) expect(checkGithubTarget({ repo, pr_number: '1' }).ok, repo).toBe(false);
    for (const pr of ['1e+23', '99999999999999999999', '0', '-1', '1.5', ' 7']) expect(checkGithubTarget({ repo: 'octo/repo', pr_number: pr }).ok, pr).toBe(false);
    expect(checkGithubTarget({ repo: 'octo-org/repo.js', pr_number: '42' })).toEqual({ ok: true, value: { repo: 'octo-org/repo.js', prNumber: 42 } });
  });
});
