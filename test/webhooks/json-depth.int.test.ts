import { afterEach, describe, expect, it } from 'vitest';
import { jsonDepth, MAX_JSON_DEPTH } from '../../source/webhooks/request.js';
import { githubHeaders, makeWebhookGateway, SECRET } from '../helpers/webhooks.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => { for (const close of closers.splice(0)) await close(); });

const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;

describe('payload nesting is limited at parse time', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonDepth('{"a":{"b":[1,{"c":2}]}}')).toBe(4);
    expect(jsonDepth('{"text":"[[[{{{ \\" [[["}')).toBe(1);
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
  });

  it(`answers 400 naming the limit for a payload nested 5,000 levels deep (it used to be a 500 from template rendering), and accepts ${MAX_JSON_DEPTH}`, async () => {
    const made = makeWebhookGateway(tempHome(), { routes: { deep: { secret: SECRET, prompt: 'Look at {a}' } } });
    closers.push(async () => { await made.gateway.stop('test over'); made.store.close(); });
    await made.gateway.start();
    const post = (body: string) => made.app.inject({ method: 'POST', url: '/webhooks/deep', payload: body, headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'push') } });
    const deep = await post(nested(5000));
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toMatchObject({ error: `The body nests deeper than ${MAX_JSON_DEPTH} levels (the limit for webhook payloads)`, route: 'deep' });
    expect((await post(nested(MAX_JSON_DEPTH))).statusCode).toBe(202);
  });
});
