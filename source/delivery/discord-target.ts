import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import { splitMessage } from './split.js';
import type { ResolvedTarget } from './targets.js';

/** REST create-message with the bot token, split at 2000 characters. */
export function discordSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const url = `${target.baseUrl}/api/v10/channels/${encodeURIComponent(target.recipient!)}/messages`;
  return splitMessage(text, 2000).map((chunk) => () => postHttp(url, {
    headers: { 'content-type': 'application/json', authorization: `Bot ${setting(target.settings, 'bot_token')}` },
    body: JSON.stringify({ content: chunk }),
  }));
}
