import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../source/config/errors.js';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import { createSubscriptionStore } from '../../source/store/webhook-subscriptions.js';
import { signGithub, signStandard } from '../../source/webhooks/signature.js';
import type { WebhookRequestRecord } from '../../source/webhooks/types.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubExample, githubHeaders, gitlabFixtures, gitlabPayload, makeWebhookGateway, SECRET, waitUntil, type WebhookGatewayOptions } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: WebhookGatewayOptions = {}) {
  const made = makeWebhookGateway(tempHome(), options);
  const received: WebhookRequestRecord[] = [];
  made.gateway.events.on('webhook.received', (record) => received.push(record));
  cleanups.push(async () => { await made.gateway.stop('test over'); made.store.close(); });
  await made.gateway.start();
  const post = (route: string, body: string, headers: Record<string, string>) => made.app.inject({ method: 'POST', url: `/webhooks/${route}`, payload: body, headers });
  return { ...made, received, post, deliveries: createDeliveryStore(made.store) };
}

const json = (value: unknown) => JSON.stringify(value);

describe('webhook intake over inject(): the documented check order', () => {
  it('accepts real GitHub payloads (pull_request opened and synchronize, issues, check_run, push) with 202 and runs each once', async () => {
    const { post, deliveries, gateway } = await started({ routes: { gh: { secret: SECRET, events: ['pull_request', 'issues', 'check_run', 'push'], prompt: '{action} {repository.full_name}', deliver: 'log' } } });
    const completed: string[] = [];
    gateway.events.on('webhook.completed', (done) => completed.push(`${done.deliveryId}:${done.state}`));
    const cases = [['pull_request', 'opened'], ['pull_request', 'synchronize'], ['issues', 'opened'], ['check_run', 'completed'], ['push', undefined]] as const;
    const ids: string[] = [];
    for (const [event, action] of cases) {
      const payload = githubExample(event, action);
      const body = json(payload);
      const id = randomUUID();
      ids.push(id);
      const response = await post('gh', body, githubHeaders(SECRET, body, event, id));
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({ status: 'accepted', route: 'gh', event, delivery_id: id });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const row = deliveries.findByDeliveryId(id)!;
      expect(row.prompt).toBe(`${(payload.action as string | undefined) ?? '{action}'} ${(payload.repository as { full_name: string }).full_name}`);
      expect(row.headers['x-github-event']).toBe(event);
      expect(row.headers).not.toHaveProperty('x-hub-signature-256');
    }
    await waitUntil(() => completed.length === cases.length, 20_000, 'every run');
    expect(completed.sort()).toEqual(ids.map((id) => `${id}:delivered`).sort());
  });

  it('answers the GitHub ping with ignored when not listed, logged at debug only', async () => {
    const { post, log, deliveries } = await started({ routes: { gh: { secret: SECRET, events: ['push'] } } });
    const body = json(githubExample('ping'));
    const response = await post('gh', body, githubHeaders(SECRET, body, 'ping', 'ping-1'));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ignored', event: 'ping' });
    expect(deliveries.findByDeliveryId('ping-1')).toBeUndefined();
    const line = log.lines.map((text) => JSON.parse(text) as { level: number; outcome?: string }).find((entry) => entry.outcome === 'ignored');
    expect(line?.level).toBe(20);
  });

  it('ignores ping on a route that accepts every event, and accepts it when listed', async () => {
    const { post } = await started({ routes: { all: { secret: SECRET }, pings: { secret: SECRET, events: ['ping'] } } });
    const body = json(githubExample('ping'));
    expect((await post('all', body, githubHeaders(SECRET, body, 'ping'))).json()).toEqual({ status: 'ignored', event: 'ping' });
    expect((await post('all', body, githubHeaders(SECRET, body, 'push'))).statusCode).toBe(202);
    expect((await post('pings', body, githubHeaders(SECRET, body, 'ping'))).statusCode).toBe(202);
  });

  it('accepts real GitLab payloads by X-Gitlab-Token, filtering on the exact X-Gitlab-Event value', async () => {
    const { post, deliveries } = await started({ routes: { gl: { secret: 'gitlab-token-1', events: ['Merge Request Hook', 'Push Hook', 'Pipeline Hook'], prompt: '{object_kind}' } } });
    for (const { file, event } of gitlabFixtures) {
      const body = gitlabPayload(file);
      const id = randomUUID();
      const response = await post('gl', body, { 'content-type': 'application/json', 'x-gitlab-event': event, 'x-gitlab-token': 'gitlab-token-1', 'x-request-id': id });
      if (['Merge Request Hook', 'Push Hook', 'Pipeline Hook'].includes(event)) {
        expect(response.statusCode, file).toBe(202);
        expect(response.json()).toEqual({ status: 'accepted', route: 'gl', event, delivery_id: id });
        expect(deliveries.findByDeliveryId(id)!.prompt).toBe(JSON.parse(body).object_kind);
        expect(deliveries.findByDeliveryId(id)!.headers).not.toHaveProperty('x-gitlab-token');
      } else {
        expect(response.json()).toEqual({ status: 'ignored', event });
      }
    }
    const wrong = await post('gl', gitlabPayload('push-event.json'), { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'gitlab-token-2' });
    expect(wrong.statusCode).toBe(401);
    const lowercase = await post('gl', gitlabPayload('push-event.json'), { 'content-type': 'application/json', 'x-gitlab-event': 'push hook', 'x-gitlab-token': 'gitlab-token-1' });
    expect(lowercase.json()).toEqual({ status: 'ignored', event: 'push hook' });
  });

  it('runs the checks in order: 404, 413, 401, 429, 415/400, ignored, duplicate, 202, recording every outcome', async () => {
    const { post, received } = await started({ routes: { r: { secret: SECRET, events: ['push'], rate_limit: 3 } }, edit: (c) => { c.platforms!.webhook!.extra!.max_body_bytes = 200; } });
    const big = json({ pad: 'x'.repeat(300) });
    // Unknown route beats everything, even a huge unsigned body.
    expect((await post('nope', big, {})).json()).toMatchObject({ error: 'Unknown route: nope', route: 'nope' });
    // Too large beats auth.
    const tooLarge = await post('r', big, { 'content-type': 'application/json' });
    expect([tooLarge.statusCode, tooLarge.json()]).toEqual([413, { error: 'Payload too large', message: 'Route "r": the body is larger than 200 bytes (platforms.webhook.extra.max_body_bytes)', route: 'r' }]);
    // Auth beats the rate limit and the body: a bad signature on a bad body is 401, and does not use up the limit.
    for (let i = 0; i < 5; i++) expect((await post('r', 'not json', { 'content-type': 'text/plain', 'x-hub-signature-256': 'sha256=00' })).statusCode).toBe(401);
    expect((await post('r', '{}', { 'content-type': 'application/json' })).json()).toMatchObject({ error: 'Invalid signature', route: 'r' });
    // Three signed requests pass the limit whatever their body; the fourth is 429 before its body is looked at.
    const text = 'plain text';
    expect((await post('r', text, { 'content-type': 'text/plain', 'x-hub-signature-256': signGithub(SECRET, text) })).statusCode).toBe(415);
    expect((await post('r', '[1]', { 'content-type': 'application/json', 'x-hub-signature-256': signGithub(SECRET, '[1]') })).statusCode).toBe(400);
    const ok = json({ ref: 'main' });
    expect((await post('r', ok, githubHeaders(SECRET, ok, 'push', 'd-1'))).statusCode).toBe(202);
    const limited = await post('r', text, { 'content-type': 'text/plain', 'x-hub-signature-256': signGithub(SECRET, text) });
    expect([limited.statusCode, limited.json()]).toEqual([429, { error: 'Rate limit exceeded', message: expect.stringContaining('Route "r": more than 3 requests in 60 s; retry after'), route: 'r' }]);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(received.map((r) => `${r.outcome}:${r.status}`)).toEqual([
      'unknown_route:404', 'too_large:413', ...Array(6).fill('unauthorized:401'), 'unsupported_type:415', 'bad_request:400', 'accepted:202', 'rate_limited:429',
    ]);
    expect(received.every((r) => r.latencyMs >= 0 && r.route.length > 0)).toBe(true);
  });

  it('filters events before deduplicating, and deduplicates before accepting', async () => {
    const { post } = await started({ routes: { r: { secret: SECRET, events: ['push'] } } });
    const body = json({ a: 1 });
    expect((await post('r', body, githubHeaders(SECRET, body, 'issues', 'same'))).json()).toEqual({ status: 'ignored', event: 'issues' });
    expect((await post('r', body, githubHeaders(SECRET, body, 'push', 'same'))).statusCode).toBe(202); // ignored ids are not recorded
    const again = await post('r', body, githubHeaders(SECRET, body, 'push', 'same'));
    expect([again.statusCode, again.json()]).toEqual([200, { status: 'duplicate', delivery_id: 'same' }]);
  });

  it('body rules: JSON object, GitHub form encoding; invalid JSON, non-objects and other types refused with the reason', async () => {
    const { post, deliveries } = await started();
    const signed = (body: string, type?: string) => post('hook', body, { ...(type ? { 'content-type': type } : {}), 'x-hub-signature-256': signGithub(SECRET, body), 'x-github-event': 'push' });
    const form = `payload=${encodeURIComponent(json({ via: 'form' }))}`;
    const accepted = await signed(form, 'application/x-www-form-urlencoded');
    expect(accepted.statusCode).toBe(202);
    expect(JSON.parse(deliveries.findByDeliveryId(accepted.json().delivery_id)!.prompt)).toEqual({ via: 'form' });
    expect((await signed(json({ charset: true }), 'application/json; charset=utf-8')).statusCode).toBe(202);
    const cases: Array<[string, string | undefined, number, string]> = [
      ['{"a":', 'application/json', 400, 'Invalid JSON in the body'],
      ['[]', 'application/json', 400, 'must be a JSON object, not an array'],
      ['null', 'application/json', 400, 'not null'],
      ['"text"', 'application/json', 400, 'not string'],
      ['', 'application/json', 400, 'Empty body'],
      ['other=1', 'application/x-www-form-urlencoded', 400, 'without a "payload" field'],
      ['payload=%5B%5D', 'application/x-www-form-urlencoded', 400, 'must be a JSON object'],
      ['<xml/>', 'application/xml', 415, 'Unsupported content type application/xml'],
      ['{}', undefined, 415, 'Missing Content-Type'],
    ];
    for (const [body, type, status, reason] of cases) {
      const response = await signed(body, type);
      expect(response.statusCode, `${type} ${body}`).toBe(status);
      expect(response.json().error).toContain(reason);
    }
  });

  it('names events and delivery ids by the documented precedence', async () => {
    const { post, deliveries } = await started();
    const send = async (payload: Record<string, unknown>, headers: Record<string, string>) => {
      const body = json(payload);
      const response = await post('hook', body, { 'content-type': 'application/json', 'x-hub-signature-256': signGithub(SECRET, body), ...headers });
      return response.json() as { event: string; delivery_id: string };
    };
    expect(await send({ event_type: 'e1', type: 't1' }, { 'x-gitlab-event': 'Push Hook', 'x-request-id': 'req-1', 'webhook-id': 'wh-1' })).toEqual({ status: 'accepted', route: 'hook', event: 'Push Hook', delivery_id: 'req-1' });
    expect(await send({ event_type: 'e1', type: 't1' }, { 'webhook-id': 'wh-2' })).toMatchObject({ event: 'e1', delivery_id: 'wh-2' });
    expect(await send({ type: 't1' }, { 'x-github-delivery': 'gh-3', 'x-request-id': 'req-3' })).toMatchObject({ event: 't1', delivery_id: 'gh-3' });
    const generated = await send({}, {});
    expect(generated.event).toBe('unknown');
    expect(generated.delivery_id).toMatch(/^gen-/);
    // Generated ids are never deduplicated: the same body twice is two deliveries.
    const second = await send({}, {});
    expect(second.delivery_id).not.toBe(generated.delivery_id);
    expect(deliveries.recent({ route: 'hook' })).toHaveLength(5);
  });

  it('50 concurrent requests with one delivery id give exactly one 202', async () => {
    const { post, deliveries } = await started({ edit: (c) => { c.platforms!.webhook!.extra!.rate_limit = 1000; } });
    const body = json(githubExample('push'));
    const responses = await Promise.all(Array.from({ length: 50 }, () => post('hook', body, githubHeaders(SECRET, body, 'push', 'one-id'))));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(responses.filter((r) => r.statusCode === 200).every((r) => r.json().status === 'duplicate')).toBe(true);
    expect(deliveries.recent({ route: 'hook' })).toHaveLength(1);
  });

  it('forgets a delivery id after idempotency_ttl_seconds, per route, and across a restart', async () => {
    let now = Date.now();
    const home = tempHome();
    const options: WebhookGatewayOptions = { now: () => now, routes: { a: { secret: SECRET }, b: { secret: SECRET } }, edit: (c) => { c.platforms!.webhook!.extra!.idempotency_ttl_seconds = 60; } };
    const first = makeWebhookGateway(home, options);
    await first.gateway.start();
    const body = json({ x: 1 });
    const post = (app: typeof first.app, route: string) => app.inject({ method: 'POST', url: `/webhooks/${route}`, payload: body, headers: githubHeaders(SECRET, body, 'push', 'ttl-id') });
    expect((await post(first.app, 'a')).statusCode).toBe(202);
    expect((await post(first.app, 'b')).statusCode).toBe(202); // scope is the route
    await first.gateway.stop();
    first.store.close();

    const second = makeWebhookGateway(home, options);
    cleanups.push(async () => { await second.gateway.stop(); second.store.close(); });
    await second.gateway.start();
    expect((await post(second.app, 'a')).json()).toEqual({ status: 'duplicate', delivery_id: 'ttl-id' }); // survives the restart
    now += 59_000;
    expect((await post(second.app, 'a')).statusCode).toBe(200);
    now += 1_000;
    expect((await post(second.app, 'a')).statusCode).toBe(202);
  });

  it('auth: rotation lists, the global fallback, Standard Webhooks, INSECURE_NO_AUTH on loopback', async () => {
    const { post } = await started({
      routes: { rotated: { secret: ['old-secret-1', 'new-secret-2'] }, fallback: {}, std: { secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZg==' }, open: { secret: 'INSECURE_NO_AUTH' } },
      edit: (c) => { c.platforms!.webhook!.extra!.secret = 'global-secret-3'; },
    });
    const body = json({ a: 1 });
    const gh = (secret: string) => ({ 'content-type': 'application/json', 'x-hub-signature-256': signGithub(secret, body) });
    expect((await post('rotated', body, gh('old-secret-1'))).statusCode).toBe(202);
    expect((await post('rotated', body, gh('new-secret-2'))).statusCode).toBe(202);
    expect((await post('rotated', body, gh('global-secret-3'))).statusCode).toBe(401);
    expect((await post('fallback', body, gh('global-secret-3'))).statusCode).toBe(202);
    const ts = Math.floor(Date.now() / 1000);
    const std = { 'content-type': 'application/json', 'webhook-id': 'msg_9', 'webhook-timestamp': String(ts), 'webhook-signature': signStandard('whsec_MDEyMzQ1Njc4OWFiY2RlZg==', 'msg_9', ts, body) };
    expect((await post('std', body, std)).json()).toMatchObject({ status: 'accepted', delivery_id: 'msg_9' });
    expect((await post('std', body, { ...std, 'webhook-timestamp': String(ts - 301) })).statusCode).toBe(401);
    expect((await post('open', body, { 'content-type': 'application/json' })).statusCode).toBe(202);
  });

  it('never answers 500 to garbage signature headers', async () => {
    const { post } = await started();
    for (const headers of <Array<Record<string, string>>>[{ 'x-hub-signature-256': 'sha256=' + 'f'.repeat(4000) }, { 'x-hub-signature-256': 'sha256=ü' }, { 'x-gitlab-token': '\u00ff\u00fe' }, { 'webhook-signature': 'v1,@@', 'webhook-id': 'x', 'webhook-timestamp': 'soon' }]) {
      const response = await post('hook', '{}', { 'content-type': 'application/json', ...headers });
      expect(response.statusCode).toBe(401);
    }
  });

  it('serves a subscription written to the store while running, and a static route of the same name wins', async () => {
    const { post, store } = await started();
    const body = json({ a: 1 });
    expect((await post('fresh', body, githubHeaders('sub-secret-1', body, 'push'))).statusCode).toBe(404);
    const subscriptions = createSubscriptionStore(store);
    subscriptions.save({ name: 'fresh', secret: 'sub-secret-1', events: [], prompt: null, skills: [], deliver: 'log', deliverExtra: {}, description: null }, () => 'unused', Date.now());
    expect((await post('fresh', body, githubHeaders('sub-secret-1', body, 'push'))).statusCode).toBe(202);
    subscriptions.save({ name: 'hook', secret: 'sub-secret-2', events: [], prompt: null, skills: [], deliver: 'log', deliverExtra: {}, description: null }, () => 'unused', Date.now());
    expect((await post('hook', body, githubHeaders('sub-secret-2', body, 'push'))).statusCode).toBe(401);
    expect((await post('hook', body, githubHeaders(SECRET, body, 'push'))).statusCode).toBe(202);
    subscriptions.remove('fresh');
    expect((await post('fresh', body, githubHeaders('sub-secret-1', body, 'push'))).statusCode).toBe(404);
  });

  it('logs one line per request and never a secret', async () => {
    const { post, log } = await started({ routes: { gl: { secret: 'gitlab-token-secret-xyz' } } });
    const body = json({ a: 1 });
    await post('gl', body, { 'content-type': 'application/json', 'x-gitlab-token': 'gitlab-token-secret-xyz', 'x-request-id': 'r-1', 'x-gitlab-event': 'Push Hook' });
    await post('gl', body, { 'content-type': 'application/json', 'x-gitlab-token': 'wrong-token-abc' });
    await waitUntil(() => log.text().includes('delivered'), 10_000, 'the delivery');
    const requestLines = log.lines.filter((line) => line.includes('"outcome"'));
    expect(requestLines).toHaveLength(2);
    expect(JSON.parse(requestLines[0]!)).toMatchObject({ route: 'gl', event: 'Push Hook', deliveryId: 'r-1', outcome: 'accepted', status: 202, msg: expect.stringMatching(/^webhook gl event=Push Hook delivery=r-1 -> accepted 202 [\d.]+ms$/) });
    expect(JSON.parse(requestLines[1]!)).toMatchObject({ outcome: 'unauthorized', status: 401, reason: 'X-Gitlab-Token does not match' });
    expect(log.text()).not.toContain('gitlab-token-secret-xyz');
    expect(log.text()).not.toContain('wrong-token-abc');
  });
});

describe('intake logging at info: refusals one by one, accepted and duplicate requests summed up per route', () => {
  it('writes no line per accepted or duplicate request, a line per refusal, a summary when the listener closes, and an event for every request', async () => {
    const { post, log, gateway, received } = await started({ routes: { gh: { secret: SECRET, events: [] } }, level: 'info' });
    const body = json({ zen: 'hi' });
    const odd = 'odd "event" \\ name';
    const first = await post('gh', body, githubHeaders(SECRET, body, odd, 'd-1'));
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ status: 'accepted', route: 'gh', event: odd, delivery_id: 'd-1' });
    expect((await post('gh', body, githubHeaders(SECRET, body, 'push', 'd-2'))).statusCode).toBe(202);
    expect((await post('gh', body, githubHeaders(SECRET, body, 'push', 'd-1'))).statusCode).toBe(200);
    expect((await post('gh', body, githubHeaders('wrong-secret', body, 'push', 'd-3'))).statusCode).toBe(401);
    expect(received.map((record) => `${record.deliveryId}:${record.outcome}`)).toEqual(['d-1:accepted', 'd-2:accepted', 'd-1:duplicate', 'd-3:unauthorized']);
    const requestLines = () => log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => 'outcome' in entry);
    expect(requestLines()).toEqual([expect.objectContaining({ level: 30, outcome: 'unauthorized', status: 401, deliveryId: 'd-3' })]);
    expect(log.text()).not.toContain('Webhooks on route gh');
    await gateway.stop('test over');
    const summaries = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => String(entry.msg).startsWith('Webhooks on route'));
    expect(summaries).toEqual([expect.objectContaining({ level: 30, route: 'gh', accepted: 2, duplicate: 1, msg: expect.stringMatching(/^Webhooks on route gh in the last \d+ s: 2 accepted, 1 duplicate$/) })]);
  });
});

describe('startup refusals', () => {
  const build = (options: WebhookGatewayOptions) => () => makeWebhookGateway(tempHome(), options);

  it('refuses a route with neither a route secret nor extra.secret, naming the route and INSECURE_NO_AUTH', () => {
    const error = (() => { try { build({ routes: { bare: { events: [] } } })(); } catch (caught) { return caught; } })() as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('"bare"');
    expect(error.hint).toContain('INSECURE_NO_AUTH');
  });

  it('refuses INSECURE_NO_AUTH unless the host is loopback, and an unresolved ${VAR} secret', () => {
    expect(build({ routes: { dev: { secret: 'INSECURE_NO_AUTH' } }, edit: (c) => { c.platforms!.webhook!.extra!.host = '0.0.0.0'; } })).toThrow(/not a loopback address/);
    expect(build({ routes: { dev: { secret: ['real-secret-1', 'INSECURE_NO_AUTH'] } }, edit: (c) => { c.platforms!.webhook!.extra!.host = '10.0.0.1'; } })).toThrow(/INSECURE_NO_AUTH/);
    expect(build({ routes: { env: { secret: '${MISSING_WEBHOOK_SECRET}' } } })).toThrow(/MISSING_WEBHOOK_SECRET.*not set/);
    expect(build({ routes: { dev: { secret: 'INSECURE_NO_AUTH' } }, edit: (c) => { c.platforms!.webhook!.extra!.host = '::1'; } })).not.toThrow();
  });
});
