import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../source/store/store-fault.js';
import type { ResolvedRoute } from '../../source/webhooks/config.js';
import type { RateDecision } from '../../source/webhooks/rate-limit.js';
import { buildWebhookServer } from '../../source/webhooks/server.js';
import { signGithub } from '../../source/webhooks/signature.js';
import type { WebhookRequestRecord } from '../../source/webhooks/types.js';

const SECRET = 'async-limit-secret';
const route: ResolvedRoute = { name: 'gh', source: 'static', secrets: [SECRET], insecure: false, events: [], skills: [], deliver: 'log', deliverExtra: {}, rateLimit: 5 };

/** A server whose rate limit answers later, as a limiter shared on PostgreSQL does. */
function serverWithLimiter(check: () => Promise<RateDecision>) {
  const accepted: string[] = [];
  const records: WebhookRequestRecord[] = [];
  const app = buildWebhookServer({
    logger: pino({}, { write: () => {} }), maxBodyBytes: 10_000, now: Date.now, findRoute: (name) => (name === 'gh' ? route : undefined),
    rateLimiter: { check },
    accept: async (input) => {
      accepted.push(input.deliveryId);
      return 'accepted' as const;
    },
    onOutcome: (record) => records.push(record),
  });
  const post = (deliveryId: string) => {
    const body = JSON.stringify({ n: deliveryId });
    return app.inject({ method: 'POST', url: '/webhooks/gh', payload: body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': deliveryId, 'x-hub-signature-256': signGithub(SECRET, body) } });
  };
  return { accepted, records, post };
}

describe('a rate limit that answers with a promise', () => {
  it('accepts what it admits and refuses the rest with 429 and retry-after, accepting nothing', async () => {
    const decisions: RateDecision[] = [{ ok: true }, { ok: false, retryAfterSeconds: 42 }];
    const { accepted, records, post } = serverWithLimiter(async () => decisions.shift()!);
    expect((await post('d-1')).statusCode).toBe(202);
    const refused = await post('d-2');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('42');
    expect(refused.json()).toMatchObject({ error: 'Rate limit exceeded', message: 'Route "gh": more than 5 requests in 60 s; retry after 42 s' });
    expect(accepted).toEqual(['d-1']);
    expect(records.map((record) => `${record.deliveryId} ${record.outcome} ${record.status}`)).toEqual(['d-1 accepted 202', 'd-2 rate_limited 429']);
  });

  it('answers 503 when the store cannot check, and 500 on any other failure; nothing is accepted', async () => {
    const failures: Error[] = [new StoreUnavailableError({ kind: 'io', message: 'disk I/O error', sinceMs: 0 }, 5), new Error('bug')];
    const { accepted, records, post } = serverWithLimiter(async () => { throw failures.shift()!; });
    const unavailable = await post('d-1');
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('5');
    expect((await post('d-2')).statusCode).toBe(500);
    expect(accepted).toEqual([]);
    expect(records.map((record) => `${record.deliveryId} ${record.outcome} ${record.status}`)).toEqual(['d-1 error 503', 'd-2 error 500']);
  });
});
