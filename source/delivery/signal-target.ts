import { postHttp, type AttemptOutcome } from './attempts.js';
import { setting } from './platforms.js';
import type { ResolvedTarget } from './targets.js';

/** The signal-cli REST API: POST <api_url>/v2/send. */
export function signalSends(target: ResolvedTarget, text: string): Array<() => Promise<AttemptOutcome>> {
  const url = `${setting(target.settings, 'api_url')!.replace(/\/+$/, '')}/v2/send`;
  return [() => postHttp(url, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: text, number: setting(target.settings, 'number'), recipients: [target.recipient] }),
  })];
}
