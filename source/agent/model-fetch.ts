import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';

/**
 * The `fetch` the provider packages get: their request (one JSON body) goes out through node:http on
 * a keep-alive agent and the answer comes back as a WHATWG `Response`, so the provider still builds
 * the request, reads and validates the response and maps errors itself. Per call against a model on
 * loopback, Node's `fetch` took about 650 µs of CPU (its WHATWG request and body streams, a header
 * write and a body write per request), undici's `request` about 190 µs and node:http about 170 µs;
 * node:http also loads in about 10 ms where the undici package takes about 220 ms of a first run.
 * Anything else (a stream or form body) goes to the global `fetch`. Failures look like fetch's
 * (`TypeError('fetch failed')` with the cause), which the provider retries as a network error.
 */
export function createModelFetch(): typeof fetch {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  // A provider calls one or two URLs: their request options are made once, not a `URL` and its
  // conversion per call (about 7 µs each).
  const targets = new Map<string, Target | null>();
  const targetOf = (input: string | URL): Target | null => {
    const key = String(input);
    let target = targets.get(key);
    if (target !== undefined) return target;
    const url = new URL(key);
    target = url.protocol === 'http:' || url.protocol === 'https:'
      ? { transport: url.protocol === 'https:' ? https : http, options: { ...urlToHttpOptions(url), agent: agents[url.protocol] } }
      : null;
    if (targets.size >= 16) targets.clear();
    targets.set(key, target);
    return target;
  };
  return async (input, init) => {
    const body = init?.body;
    if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
    if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
    const target = targetOf(input);
    if (!target) return fetch(input, init);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const headers = headersOf(init?.headers);
    if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      // The signal gets one listener of ours, removed once the call settles: node:http's `signal`
      // option added and removed two per call (about 10 µs).
      let settled = false;
      const settle = () => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settle();
        if (signal?.aborted) reject(signal.reason);
        else reject(new TypeError('fetch failed', { cause: error }));
      };
      const request = target.transport.request({ ...target.options, method: init?.method ?? 'GET', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          if (settled) return;
          const status = response.statusCode ?? 0;
          const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
          try {
            const answer = new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage ?? '', headers: pairs(response.rawHeaders) });
            settle();
            resolve(answer);
          } catch (error) {
            fail(error);
          }
        });
      });
      const onAbort = () => {
        fail(signal!.reason);
        request.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('error', fail);
      request.end(body ?? undefined);
    });
  };
}

interface Target {
  transport: typeof http | typeof https;
  options: http.RequestOptions;
}

function headersOf(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers as Record<string, string | undefined>)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

/** rawHeaders (name, value, name, value, ...) as pairs: repeated headers (set-cookie) stay separate. */
function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let index = 0; index + 1 < raw.length; index += 2) out.push([raw[index]!, raw[index + 1]!]);
  return out;
}
