import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import { splitMessage } from './split.js';
import type { ResolvedTarget } from './targets.js';

/** Bot API sendMessage, split at 4096 characters; a thread id posts into a forum topic. */
export function telegramSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const url = `${target.baseUrl}/bot${setting(target.settings, 'bot_token')}/sendMessage`;
  return splitMessage(text, 4096).map((chunk) => () => postHttp(url, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chat_id: target.recipient, text: chunk, ...(target.threadId ? { message_thread_id: Number(target.threadId) } : {}) }),
  }));
}
