import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../source/store/store-fault.js';
import type { ResolvedRoute } from '../../source/webhooks/config.js';
import { createRateLimiter } from '../../source/webhooks/rate-limit.js';
import { buildWebhookServer, type AcceptResult } from '../../source/webhooks/server.js';
import { signGithub } from '../../source/webhooks/signature.js';
import type { WebhookRequestRecord } from '../../source/webhooks/types.js';

const SECRET = 'waiters-secret';
const route: ResolvedRoute = { name: 'gh', source: 'static', secrets: [SECRET], insecure: false, events: [], skills: [], deliver: 'log', deliverExtra: {}, rateLimit: 1000 };

/** A server whose accepts all wait on one commit the test settles. */
function serverWithOneCommit() {
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const committed = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const accepted: string[] = [];
  const records: WebhookRequestRecord[] = [];
  const app = buildWebhookServer({
    logger: pino({ level: 'silent' }), maxBodyBytes: 10_000, now: Date.now, findRoute: (name) => (name === 'gh' ? route : undefined), rateLimiter: createRateLimiter(),
    accept: (input): AcceptResult => {
      accepted.push(input.deliveryId);
      return { kind: input.deliveryId === 'd-dup' ? 'duplicate' : 'accepted', committed };
    },
    onOutcome: (record) => records.push(record),
  });
  const post = (deliveryId: string) => {
    const body = JSON.stringify({ n: deliveryId });
    return app.inject({ method: 'POST', url: '/webhooks/gh', payload: body, headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': deliveryId, 'x-hub-signature-256': signGithub(SECRET, body) } });
  };
  return { app, settle, accepted, records, post };
}

async function untilAccepted(accepted: string[], count: number): Promise<void> {
  for (let tries = 0; accepted.length < count; tries += 1) {
    if (tries > 500) throw new Error(`only ${accepted.length} of ${count} requests reached accept`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the intake answers once the commit of its accept settles', () => {
  it('holds every reply of one commit until it commits, then answers each (202, duplicate 200) and records it', async () => {
    const { app, settle, accepted, records, post } = serverWithOneCommit();
    let answered = 0;
    const responses = ['d-1', 'd-2', 'd-dup'].map((id) => post(id).then((response) => {
      answered += 1;
      return response;
    }));
    await untilAccepted(accepted, 3);
    expect(answered).toBe(0);
    expect(records).toEqual([]);
    settle.resolve();
    const [first, second, duplicate] = await Promise.all(responses);
    expect(first!.statusCode).toBe(202);
    expect(first!.json()).toEqual({ status: 'accepted', route: 'gh', event: 'push', delivery_id: 'd-1' });
    expect(second!.json()).toEqual({ status: 'accepted', route: 'gh', event: 'push', delivery_id: 'd-2' });
    expect(duplicate!.statusCode).toBe(200);
    expect(duplicate!.json()).toEqual({ status: 'duplicate', delivery_id: 'd-dup' });
    expect(duplicate!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(records.map((record) => `${record.deliveryId} ${record.outcome} ${record.status}`)).toEqual(['d-1 accepted 202', 'd-2 accepted 202', 'd-dup duplicate 200']);
    await app.close();
  });

  it('answers 503 with Retry-After to every reply of a commit that failed, recorded as errors', async () => {
    const { app, settle, accepted, records, post } = serverWithOneCommit();
    const responses = [post('d-1'), post('d-2')];
    await untilAccepted(accepted, 2);
    settle.reject(new StoreUnavailableError({ kind: 'locked', message: 'database is locked', sinceMs: 0 }, 3));
    for (const response of await Promise.all(responses)) {
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('3');
      expect(response.json()).toMatchObject({ error: 'Service unavailable', route: 'gh' });
    }
    expect(records.map((record) => `${record.deliveryId} ${record.outcome} ${record.status}`)).toEqual(['d-1 error 503', 'd-2 error 503']);
    await app.close();
  });

  it('records a refusal once, where it is answered (no onResponse hook)', async () => {
    const { app, records } = serverWithOneCommit();
    const response = await app.inject({ method: 'POST', url: '/webhooks/gh', payload: '{}', headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' } });
    expect(response.statusCode).toBe(401);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ route: 'gh', outcome: 'unauthorized', status: 401 });
    await app.close();
  });
});
