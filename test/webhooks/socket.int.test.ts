import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { signGithub } from '../../source/webhooks/signature.js';
import { tempHome } from '../helpers/temp-home.js';
import { githubExample, githubHeaders, makeWebhookGateway, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening() {
  const made = makeWebhookGateway(tempHome(), {
    routes: { hook: { secret: SECRET, rate_limit: 2 } },
    edit: (c) => { c.platforms!.webhook!.extra!.host = '127.0.0.1'; c.platforms!.webhook!.extra!.max_body_bytes = 65_536; },
  });
  cleanups.push(async () => { await made.gateway.stop(); made.store.close(); });
  await made.gateway.start();
  const url = made.gateway.snapshot().webhook.url!;
  return { ...made, url, port: Number(new URL(url).port) };
}

/** Writes raw bytes to the listener and returns the status line and body of its answer. */
function rawRequest(port: number, head: string, chunks: Buffer[] = []): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(Buffer.from(head, 'latin1'));
      for (const chunk of chunks) socket.write(chunk);
    });
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const [headers, body] = data.split('\r\n\r\n');
      if (body !== undefined && /content-length: (\d+)/i.test(headers!) && body.length >= Number(/content-length: (\d+)/i.exec(headers!)![1])) {
        socket.destroy();
        resolve({ status: Number(data.split(' ')[1]), text: body });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(data.split(' ')[1]), text: data.split('\r\n\r\n')[1] ?? '' }));
  });
}

describe('webhook listener over a real socket', () => {
  it('accepts a really signed GitHub delivery and refuses a bad one', async () => {
    const { url, gateway } = await listening();
    const completed: string[] = [];
    gateway.events.on('webhook.completed', (event) => completed.push(event.state));
    const body = JSON.stringify(githubExample('pull_request', 'opened'));
    const ok = await fetch(`${url}/webhooks/hook`, { method: 'POST', headers: githubHeaders(SECRET, body, 'pull_request', 'sock-1'), body });
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ status: 'accepted', route: 'hook', event: 'pull_request', delivery_id: 'sock-1' });
    await waitUntil(() => completed.length === 1);
    expect(completed).toEqual(['delivered']);
    const bad = await fetch(`${url}/webhooks/hook`, { method: 'POST', headers: githubHeaders('wrong-secret', body, 'pull_request'), body });
    expect([bad.status, await bad.json()]).toEqual([401, { error: 'Invalid signature', message: 'Route "hook": the request\'s signature or token does not verify with the route\'s secret', route: 'hook' }]);
    const unknown = await fetch(`${url}/webhooks/other`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'Unknown route: other', message: 'No static route or subscription is named "other"; see: switchboard webhook list', route: 'other' }]);
  });

  it('413 for a declared Content-Length above max_body_bytes and for a streamed (chunked) body that grows past it', async () => {
    const { port, received } = await listening().then((made) => {
      const records: string[] = [];
      made.gateway.events.on('webhook.received', (record) => records.push(`${record.outcome}:${record.status}`));
      return { ...made, received: records };
    });
    const declared = await rawRequest(port, 'POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n');
    const tooLarge = { error: 'Payload too large', message: 'Route "hook": the body is larger than 65536 bytes (platforms.webhook.extra.max_body_bytes)', route: 'hook' };
    expect([declared.status, JSON.parse(declared.text)]).toEqual([413, tooLarge]);
    const chunk = Buffer.from(`{"pad":"${'x'.repeat(30_000)}`);
    const piece = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const streamed = await rawRequest(port, 'POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', [piece(chunk), piece(chunk), piece(chunk)]);
    expect([streamed.status, JSON.parse(streamed.text)]).toEqual([413, tooLarge]);
    await waitUntil(() => received.length === 2);
    expect(received).toEqual(['too_large:413', 'too_large:413']);
  });

  it('answers 401, not 500, to non-ASCII and over-long signature headers sent as raw bytes', async () => {
    const { port } = await listening();
    const body = '{"a":1}';
    for (const value of ['sha256=\xff\xfe\xe9', `sha256=${'a'.repeat(8000)}`]) {
      const response = await rawRequest(port, `POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Hub-Signature-256: ${value}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      expect(response.status).toBe(401);
    }
    const token = await rawRequest(port, `POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Gitlab-Token: \xe9t\xe9\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(token.status).toBe(401);
  });

  it('429 with Retry-After once a route has passed rate_limit signed requests in a minute', async () => {
    const { url } = await listening();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ i });
      const response = await fetch(`${url}/webhooks/hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signGithub(SECRET, body) }, body });
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers.get('retry-after');
        expect(await response.json()).toEqual({ error: 'Rate limit exceeded', message: expect.stringMatching(/^Route "hook": more than 2 requests in 60 s; retry after \d+ s$/), route: 'hook' });
      }
    }
    expect(statuses).toEqual([202, 202, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });
});
