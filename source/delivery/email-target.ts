import { spaceControls } from '../infra/control-chars.js';
import type { AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import type { ResolvedTarget } from './targets.js';

/** SMTP through nodemailer (loaded on the first email). Permanent SMTP refusals (5xx) are not retried; the rest are. */
export function emailSends(target: ResolvedTarget, text: string, subject: string): Array<() => Promise<AttemptOutcome>> {
  const settings = target.settings;
  return [async () => {
    const username = setting(settings, 'username');
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport({
      host: setting(settings, 'host'),
      port: Number(setting(settings, 'port') ?? 587),
      secure: settings?.secure === true,
      ...(username ? { auth: { user: username, pass: setting(settings, 'password') ?? '' } } : {}),
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 30_000,
    });
    try {
      // Header values carry no line breaks or control characters, whatever a payload rendered into them.
      await transport.sendMail({ from: setting(settings, 'from'), to: target.recipient, subject: spaceControls(subject), text });
      return { ok: true };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      return { ok: false, error: `SMTP: ${(error as Error).message}`, retryable: code === undefined || code < 500, ...(code ? { status: code } : {}) };
    } finally {
      transport.close();
    }
  }];
}
