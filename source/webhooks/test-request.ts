import { randomUUID } from 'node:crypto';
import { signGithub } from './signature.js';

/** The payload sent by `webhook test` when none is given. */
export function defaultTestPayload(nowMs: number): Record<string, unknown> {
  return { test: true, message: 'Test delivery from switchboard webhook test', sent_at: new Date(nowMs).toISOString() };
}

/**
 * A request signed like GitHub signs (`X-Hub-Signature-256`, `X-GitHub-Event`, a fresh
 * `X-GitHub-Delivery`), for `webhooks.test()` and `switchboard webhook test`. No secret: unsigned.
 */
export function testRequest(secret: string | undefined, event: string | undefined, payload: Record<string, unknown> | undefined, nowMs: number) {
  const body = JSON.stringify(payload ?? defaultTestPayload(nowMs));
  const deliveryId = `test-${randomUUID()}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'switchboard-webhook-test',
    'x-github-event': event ?? 'test',
    'x-github-delivery': deliveryId,
  };
  if (secret !== undefined) headers['x-hub-signature-256'] = signGithub(secret, body);
  return { body, headers, deliveryId };
}
