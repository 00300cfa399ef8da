import fs from 'node:fs';
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
  const fetch: FetchFn = (url, init) =>
    undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent }) as unknown as Promise<Response>;
  return { ok: true, value: { fetch, close: () => agent.close() } };
}
