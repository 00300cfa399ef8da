import { createRequire } from 'node:module';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../source/webhooks/rate-limit.js';
import { buildWebhookServer } from '../../source/webhooks/server.js';

// Its own file: the CommonJS module cache is the process's, and vitest runs each file in a fresh fork.
describe('the webhook server has no route schemas', () => {
  it('never loads Ajv or fast-json-stringify (their compilers cost about 50 ms of a gateway start)', async () => {
    const app = buildWebhookServer({
      logger: pino({ level: 'silent' }), maxBodyBytes: 1000, now: Date.now, findRoute: () => undefined, rateLimiter: createRateLimiter(),
      accept: () => ({ kind: 'accepted', committed: Promise.resolve() }), onOutcome: () => {},
    });
    await app.ready();
    const response = await app.inject({ method: 'POST', url: '/webhooks/nope', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 'Unknown route: nope', route: 'nope' });
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok', platform: 'webhook' });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    // Fastify's own error serializer (fast-json-stringify/lib/serializer.js, precompiled) always loads; the compilers must not.
    const compilers = loaded.filter((file) => /[/\\](ajv|@fastify[/\\]ajv-compiler|@fastify[/\\]fast-json-stringify-compiler)[/\\]|fast-json-stringify[/\\]index\.js$/.test(file));
    expect(compilers).toEqual([]);
    await app.close();
  });
});
