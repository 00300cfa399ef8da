import http from 'node:http';
import https from 'node:https';

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
  return async (input, init) => {
    const body = init?.body;
    if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
    if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const headers = headersOf(init?.headers);
    if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const fail = (error: unknown) => {
        if (signal?.aborted) reject(signal.reason);
        else reject(new TypeError('fetch failed', { cause: error }));
      };
      const request = transport.request(url, { method: init?.method ?? 'GET', headers, agent: agents[url.protocol as 'http:'], ...(signal ? { signal } : {}) }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const nullBody = status === 204 || status === 304 || (status >= 100 && status < 200);
          try {
            resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage ?? '', headers: pairs(response.rawHeaders) }));
          } catch (error) {
            fail(error);
          }
        });
      });
      request.on('error', fail);
      request.end(body ?? undefined);
    });
  };
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
