import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import { splitMessage } from './split.js';
import type { ResolvedTarget } from './targets.js';

/**
 * chat.postMessage with the bot token (`thread_ts` replies in a thread). Slack answers 200 with
 * `ok: false` on errors. Split at 40,000 characters (its hard limit).
 */
export function slackSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const url = `${target.baseUrl}/api/chat.postMessage`;
  return splitMessage(text, 40_000).map((chunk) => () => postHttp(url, {
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${setting(target.settings, 'bot_token')}` },
    body: JSON.stringify({ channel: target.recipient, text: chunk, ...(target.threadId ? { thread_ts: target.threadId } : {}) }),
  }, (body) => ((body as { ok?: boolean })?.ok === true ? undefined : String((body as { error?: string })?.error ?? 'Slack answered without ok: true'))));
}
