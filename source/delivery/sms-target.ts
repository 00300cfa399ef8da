import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import { splitMessage } from './split.js';
import type { ResolvedTarget } from './targets.js';

/** Twilio Messages API with Basic auth, split at 1600 characters. */
export function smsSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const sid = setting(target.settings, 'account_sid')!;
  const url = `${target.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
  const auth = Buffer.from(`${sid}:${setting(target.settings, 'auth_token')}`).toString('base64');
  return splitMessage(text, 1600).map((chunk) => () => postHttp(url, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${auth}` },
    body: new URLSearchParams({ To: target.recipient!, From: setting(target.settings, 'from')!, Body: chunk }).toString(),
  }));
}
