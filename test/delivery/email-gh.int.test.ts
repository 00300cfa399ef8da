import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import type { ConfigFile } from '../../source/config/types.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0)) await close(); });

const subject = { kind: 'job' as const, jobId: 'j1', jobName: 'nightly report', runId: 'r1' };

async function smtpPeer(options: { rejectRecipient?: boolean } = {}) {
  const messages: Array<{ from: string; to: string[]; data: string; user?: string }> = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'bot' && auth.password === 'smtp-pass') callback(null, { user: 'bot' });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipient) return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk));
      stream.on('end', () => {
        messages.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), data, user: String(session.user) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, messages };
}

function emailService(port: number, password = 'smtp-pass') {
  const config = { platforms: { email: { enabled: true, host: '127.0.0.1', port, secure: false, username: 'bot', password, from: 'switchboard@example.com', home_channel: 'ops@example.com' } } } as ConfigFile;
  return createDeliveryService({ homeRoot: tempHome().root, logger: pino({ level: 'silent' }), config, retry: { baseDelayMs: 10 } });
}

describe('email over SMTP', () => {
  it('sends to the home address with login, subject naming the job', async () => {
    const smtp = await smtpPeer();
    const result = await emailService(smtp.port).deliver({ target: 'email', output: 'All 12 checks passed.', subject });
    expect(result).toMatchObject({ ok: true, detail: 'sent to email ops@example.com' });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toMatchObject({ from: 'switchboard@example.com', to: ['ops@example.com'], user: 'bot' });
    expect(smtp.messages[0]!.data).toContain('Subject: Switchboard: job nightly report (j1) run r1');
    expect(smtp.messages[0]!.data).toContain('All 12 checks passed.');
  });

  it('a rendered recipient is one plain address: CR/LF, commas and display names add no recipients or headers', async () => {
    const smtp = await smtpPeer();
    const service = emailService(smtp.port);
    for (const chat of ['ops@example.com,attacker@evil.test', 'ops@example.com\r\nBcc: attacker@evil.test', 'Ops <attacker@evil.test>', 'ops@example.com; attacker@evil.test']) {
      const result = await service.deliver({ target: 'email', extra: { chat_id: chat }, output: 'x', subject });
      expect(result, chat).toMatchObject({ ok: false, reason: expect.stringContaining('email recipient must be one plain address') });
    }
    expect(smtp.messages).toHaveLength(0);
    const sent = await service.deliver({ target: 'email', extra: { chat_id: 'dev@example.com' }, output: 'x', subject: { ...subject, jobName: 'line\r\nBcc: attacker@evil.test' } });
    expect(sent).toMatchObject({ ok: true });
    expect(smtp.messages[0]).toMatchObject({ to: ['dev@example.com'] });
    expect(smtp.messages[0]!.data).not.toMatch(/^Bcc:/m);
  });

  it('does not retry a permanent refusal, and reports bad credentials', async () => {
    const refusing = await smtpPeer({ rejectRecipient: true });
    const refused = await emailService(refusing.port).deliver({ target: 'email:nobody@example.com', output: 'x', subject });
    expect(refused).toMatchObject({ ok: false, reason: expect.stringContaining('email to nobody@example.com failed: SMTP: ') });
    const smtp = await smtpPeer();
    const badLogin = await emailService(smtp.port, 'wrong').deliver({ target: 'email', output: 'x', subject });
    expect(badLogin).toMatchObject({ ok: false, reason: expect.stringContaining('Invalid') });
    expect(JSON.stringify(badLogin)).not.toContain('wrong');
  });
});

describe('github_comment through gh', () => {
  function fakeGh(script: string) {
    const dir = path.join(tempHome().root, 'bin');
    fs.mkdirSync(dir, { recursive: true });
    const log = path.join(dir, 'calls.log');
    fs.writeFileSync(path.join(dir, 'gh'), `#!/bin/sh\n${script.replaceAll('$LOG', log)}\n`, { mode: 0o755 });
    return { env: { ...process.env, PATH: `${dir}:/usr/bin:/bin` }, log };
  }

  const recordingGh = `echo "ARGV: $*" >> $LOG
case "$1" in
  --version) echo "gh version 2.0.0" ;;
  auth) exit 0 ;;
  pr) echo "STDIN: $(cat)" >> $LOG; echo "https://github.com/octo/app/pull/12#issuecomment-1" ;;
esac`;

  function ghService(env: NodeJS.ProcessEnv) {
    return createDeliveryService({ homeRoot: tempHome().root, logger: pino({ level: 'silent' }), ghEnv: env });
  }

  it('runs gh pr comment with argv and the body on stdin', async () => {
    const gh = fakeGh(recordingGh);
    const result = await ghService(gh.env).deliver({ target: 'github_comment', extra: { repo: 'octo/app', pr_number: '12' }, output: 'LGTM; one nit.', subject: { kind: 'webhook', route: 'prs', deliveryId: 'x', event: 'pull_request' } });
    expect(result).toMatchObject({ ok: true, detail: 'commented on octo/app#12: https://github.com/octo/app/pull/12#issuecomment-1' });
    expect(fs.readFileSync(gh.log, 'utf8')).toBe('ARGV: --version\nARGV: auth status\nARGV: pr comment 12 --repo octo/app --body-file -\nSTDIN: LGTM; one nit.\n');
  });

  it('reports gh missing, gh not logged in, and bad parameters without running gh', async () => {
    const prSubject = { kind: 'webhook' as const, route: 'prs', deliveryId: 'x', event: 'pull_request' };
    const noGh = await ghService({ ...process.env, PATH: path.join(tempHome().root, 'empty') }).deliver({ target: 'github_comment', extra: { repo: 'a/b', pr_number: '1' }, output: 'x', subject: prSubject });
    expect(noGh).toMatchObject({ ok: false, reason: 'gh (GitHub CLI) is not installed or not on PATH; install it on the gateway host, or use deliver: log' });
    const loggedOut = fakeGh('case "$1" in auth) echo "You are not logged into any GitHub hosts." >&2; exit 1 ;; esac');
    expect(await ghService(loggedOut.env).deliver({ target: 'github_comment', extra: { repo: 'a/b', pr_number: '1' }, output: 'x', subject: prSubject })).toMatchObject({
      ok: false, reason: 'gh is not logged in (gh auth status: You are not logged into any GitHub hosts.); run "gh auth login" on the gateway host',
    });
    const gh = fakeGh(recordingGh);
    expect(await ghService(gh.env).deliver({ target: 'github_comment', extra: { repo: 'made up', pr_number: '1' }, output: 'x', subject: prSubject })).toMatchObject({ ok: false, reason: 'deliver_extra.repo must be owner/name (got "made up"); gh was not run' });
    expect(fs.existsSync(gh.log)).toBe(false);
  });
});
