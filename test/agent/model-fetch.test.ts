import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelFetch } from '../../source/agent/model-fetch.js';

describe('createModelFetch (the providers\' fetch on a keep-alive node:http agent)', () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ method: string; headers: http.IncomingHttpHeaders; body: string; socket: number }> = [];
  let sockets = new Map<object, number>();

  beforeEach(async () => {
    seen.length = 0;
    sockets = new Map();
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
        seen.push({ method: req.method!, headers: req.headers, body, socket: sockets.get(req.socket)! });
        if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
        res.writeHead(req.url === '/limited' ? 429 : 200, { 'content-type': 'application/json', 'retry-after': '1', 'set-cookie': ['a=1', 'b=2'] });
        res.end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, headers and body and answers with a Response, reusing the connection', async () => {
    const modelFetch = createModelFetch();
    for (const path of ['/v1/chat', '/limited']) {
      const response = await modelFetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk' }, body: '{"a":1}' });
      expect(await response.json()).toEqual({ echo: '{"a":1}' });
      expect(response.status).toBe(path === '/limited' ? 429 : 200);
      expect(response.ok).toBe(path !== '/limited');
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    }
    expect(seen.map((request) => [request.method, request.headers.authorization, request.headers['content-type'], request.body])).toEqual([
      ['POST', 'Bearer sk', 'application/json', '{"a":1}'],
      ['POST', 'Bearer sk', 'application/json', '{"a":1}'],
    ]);
    for (let n = 0; n < 4; n++) await (await modelFetch(`${url}/v1/chat`, { method: 'POST', body: '{}' })).text();
    // Kept alive: six calls in turn on one or two connections (as with fetch), not one each.
    expect(new Set(seen.map((request) => request.socket)).size).toBeLessThanOrEqual(2);
  });

  it('fails like fetch when nothing listens (the providers retry "fetch failed" as a network error)', async () => {
    const closed = url;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const error = await createModelFetch()(`${closed}/v1`, { method: 'POST', body: '{}' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(((error as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
    server = http.createServer().listen(0); // for afterEach
  });

  it('rejects with the signal\'s reason when the call is aborted', async () => {
    const signal = AbortSignal.timeout(50);
    const error = await createModelFetch()(`${url}/slow`, { method: 'POST', body: '{}', signal }).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('TimeoutError');
  });

  it('keeps the query of the URL and leaves no listener on the signal once a call settles', async () => {
    const controller = new AbortController();
    const modelFetch = createModelFetch();
    for (let n = 0; n < 3; n++) await (await modelFetch(new URL(`${url}/v1/chat?api-version=2`), { method: 'POST', body: '{}', signal: controller.signal })).text();
    await modelFetch(`${url}/limited`, { method: 'POST', body: '{}', signal: controller.signal });
    expect(seen).toHaveLength(4);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const refused = await modelFetch('http://127.0.0.1:1/v1', { method: 'POST', body: '{}', signal: controller.signal }).catch((caught: unknown) => caught);
    expect((refused as Error).message).toBe('fetch failed');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('closes the connection of an aborted call', async () => {
    const controller = new AbortController();
    const closed = new Promise<void>((resolve) => server.once('request', (request: http.IncomingMessage) => request.socket.once('close', () => resolve())));
    const call = createModelFetch()(`${url}/slow`, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    expect(((await call.catch((caught: unknown) => caught)) as Error).message).toBe('stop');
    await closed; // well before the 2 s answer
  });

  it('hands a body that is not a string to the global fetch', async () => {
    const response = await createModelFetch()(`${url}/form`, { method: 'POST', body: new URLSearchParams({ x: 'y' }) });
    expect(await response.json()).toEqual({ echo: 'x=y' });
  });
});
