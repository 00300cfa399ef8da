import type { FetchFn, Outcome } from './http-fetch.js';

const PREFLIGHT_TIMEOUT_MS = 5000;

export interface PreflightInput {
  server: string;
  url: string;
  headers: Record<string, string>;
  fetch: FetchFn;
  timeoutMs?: number;
}

/**
 * Fail fast on an URL that is not an MCP endpoint (an HTML page, say): HEAD, then GET on 405/501;
 * a 2xx with a content type that is definitely not JSON or an event stream gets one POST
 * `initialize` probe. Network errors and non-2xx answers pass: the real connect reports them.
 */
export async function preflight(input: PreflightInput): Promise<Outcome<void>> {
  const timeoutMs = input.timeoutMs ?? PREFLIGHT_TIMEOUT_MS;
  let answer = await ask(input, 'HEAD', timeoutMs);
  if (answer && (answer.status === 405 || answer.status === 501)) answer = await ask(input, 'GET', timeoutMs);
  if (!answer || answer.status < 200 || answer.status >= 300 || isMcpContentType(answer.contentType)) return { ok: true, value: undefined };
  const probe = await ask(input, 'POST', timeoutMs);
  if (!probe || isMcpContentType(probe.contentType)) return { ok: true, value: undefined };
  const ct = answer.contentType || '(none)';
  return {
    ok: false,
    reason: `server ${input.server}: ${input.url} answered Content-Type ${ct}, not an MCP endpoint (set skip_preflight: true if this is wrong)`,
  };
}

function isMcpContentType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  // Empty means "not definitely something else".
  return type === '' || type === 'application/json' || type === 'text/event-stream';
}

async function ask(input: PreflightInput, method: 'HEAD' | 'GET' | 'POST', timeoutMs: number): Promise<{ status: number; contentType: string } | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const headers: Record<string, string> = { ...input.headers, accept: 'application/json, text/event-stream' };
    let body: string | undefined;
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      headers['mcp-protocol-version'] = '2025-11-25';
      body = JSON.stringify({
        jsonrpc: '2.0', id: 0, method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'switchboard-preflight', version: '0' } },
      });
    }
    const response = await input.fetch(input.url, { method, headers, body, signal: controller.signal, redirect: 'follow' });
    const result = { status: response.status, contentType: response.headers.get('content-type') ?? '' };
    // Never wait for a body: an event stream would never end.
    controller.abort();
    return result;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
