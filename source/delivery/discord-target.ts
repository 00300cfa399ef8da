import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import { splitMessage } from './split.js';
import type { ResolvedTarget } from './targets.js';

/**
 * REST create-message with the bot token, split at 2000 characters. A thread is a channel of its own
 * to a bot: with a thread id the messages go there (`thread_id` as a query parameter is for webhook URLs only).
 */
export function discordSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const url = `${target.baseUrl}/api/v10/channels/${encodeURIComponent(target.threadId ?? target.recipient!)}/messages`;
  return splitMessage(text, 2000).map((chunk) => () => postHttp(url, {
    headers: { 'content-type': 'application/json', authorization: `Bot ${setting(target.settings, 'bot_token')}` },
    body: JSON.stringify({ content: chunk }),
  }));
}
