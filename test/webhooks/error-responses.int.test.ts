import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookRequestRecord } from '../../source/webhooks/types.js';
import { tempHome } from '../helpers/temp-home.js';
import { makeWebhookGateway, SECRET, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening() {
  const made = makeWebhookGateway(tempHome(), { routes: { hook: { secret: SECRET } }, edit: (c) => { c.platforms!.webhook!.extra!.host = '127.0.0.1'; } });
  cleanups.push(async () => { await made.gateway.stop(); made.store.close(); });
  const received: WebhookRequestRecord[] = [];
  made.gateway.events.on('webhook.received', (record) => received.push(record));
  await made.gateway.start();
  const url = made.gateway.snapshot().webhook.url!;
  return { ...made, url, port: Number(new URL(url).port), received };
}

/** Raw bytes in, the whole answer out (the listener closes the connection after an error it answers itself). */
function raw(port: number, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.from(bytes, 'latin1')));
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [headers = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(data.split(' ')[1]), headers, body });
    });
  });
}

describe('every error answer of the webhook listener is {error, message} JSON (issue #18 item 23)', () => {
  it('a control byte in a header: 400 in our shape naming the route, recorded like any refusal', async () => {
    const { port, received } = await listening();
    const answer = await raw(port, 'POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nX-Hub-Signature-256: sha256=\x01\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'Bad Request',
      message: 'Request for route "hook" refused before routing: a header holds a character HTTP does not allow (Invalid header value char): control characters are refused',
      route: 'hook',
    });
    await waitUntil(() => received.length === 1);
    expect(received[0]).toMatchObject({ route: 'hook', outcome: 'bad_request', status: 400 });
  });

  it('headers too large (431), an unknown path, a wrong method and an undecodable URL', async () => {
    const { port, url } = await listening();
    const huge = await raw(port, `POST /webhooks/hook HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect([huge.status, JSON.parse(huge.body)]).toEqual([431, { error: 'Request Header Fields Too Large', message: 'Request for route "hook" refused before routing: its headers are too large', route: 'hook' }]);
    const nowhere = await fetch(`${url}/nowhere`);
    expect([nowhere.status, await nowhere.json()]).toEqual([404, { error: 'Not found', message: 'No endpoint GET /nowhere: webhooks are POST /webhooks/<route>, health is GET /health' }]);
    const get = await fetch(`${url}/webhooks/hook`);
    expect([get.status, await get.json()]).toEqual([404, { error: 'Not found', message: 'No endpoint GET /webhooks/hook: webhooks are POST /webhooks/<route>, health is GET /health' }]);
    const badUrl = await raw(port, 'POST /webhooks/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    expect(badUrl.status).toBe(400);
    expect(JSON.parse(badUrl.body)).toMatchObject({ error: 'Bad request', message: expect.stringContaining('The URL cannot be decoded') });
  });
});
