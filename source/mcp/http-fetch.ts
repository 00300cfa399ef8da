import fs from 'node:fs';
import type { Response as UndiciResponse } from 'undici';
import type { ResolvedMcpServer } from './server-config.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

export type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpClient {
  fetch: FetchFn;
  close(): Promise<void>;
}

/**
 * One undici Agent per HTTP server carrying `ssl_verify` and `client_cert`, used through a custom
 * fetch for every request the transports make (the SSE/GET streams included, NOTES.md).
 * Missing certificate, key or CA files are reported naming the server and the path.
 */
export async function createHttpClient(server: ResolvedMcpServer): Promise<Outcome<HttpClient>> {
  const connect: Record<string, unknown> = {};
  const read = (key: string, file: string): Outcome<string> => {
    try {
      return { ok: true, value: fs.readFileSync(file, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`;
      return { ok: false, reason: `server ${server.name}: ${key} file ${file} ${why}; fix the path in mcp_servers.${server.name}.${key}` };
    }
  };
  if (server.sslVerify === false) connect.rejectUnauthorized = false;
  else if (typeof server.sslVerify === 'string') {
    const ca = read('ssl_verify', server.sslVerify);
    if (!ca.ok) return ca;
    connect.ca = ca.value;
  }
  if (server.clientCert) {
    const cert = read('client_cert', server.clientCert.certFile);
    if (!cert.ok) return cert;
    connect.cert = cert.value;
    if (server.clientCert.keyFile) {
      const key = read(server.clientCert.keyKey, server.clientCert.keyFile);
      if (!key.ok) return key;
      connect.key = key.value;
    } else connect.key = cert.value; // one PEM holding both
    if (server.clientCert.passphrase !== undefined) connect.passphrase = server.clientCert.passphrase;
  }
  const { Agent, fetch: undiciFetch } = await import('undici'); // loaded only for HTTP servers
  const agent = new Agent({ connect });
  const fetch: FetchFn = async (url, init) => asGlobalResponse(await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent }));
  return { ok: true, value: { fetch, close: () => agent.close() } };
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The undici package's Response is not the global one, and the SDK tests `instanceof Response` (its
 * OAuth error parsing reads invalid_grant / invalid_client only from a global Response).
 */
export function asGlobalResponse(response: UndiciResponse): Response {
  if (response.status < 200 || response.status > 599) return response as unknown as Response;
  const converted = new Response(NULL_BODY_STATUSES.has(response.status) ? null : (response.body as ReadableStream | null), {
    status: response.status, statusText: response.statusText, headers: [...response.headers] as Array<[string, string]>,
  });
  Object.defineProperty(converted, 'url', { value: response.url });
  Object.defineProperty(converted, 'redirected', { value: response.redirected });
  return converted;
}
