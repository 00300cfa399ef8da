// How a failed connect reads to an operator. No SDK import: the connection classifies failures
// without loading the MCP SDK.
import { isModernOnlyRejection } from './era-errors.js';
import type { ResolvedMcpServer } from './server-config.js';

/** A call that cannot go through (not connected, stopped, timed out): the caller's error. */
export class McpCallError extends Error {}

/** Missing certificate files and non-MCP endpoints: no retries. */
export class FatalConnectError extends Error {}

/** The HTTP status an SDK transport error carries (SdkHttpError `status`/`data.status`, SseError `code`). */
export function httpStatusOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const e = current as { status?: unknown; code?: unknown; data?: { status?: unknown } };
    for (const value of [e.status, e.data?.status, e.code]) {
      // JSON-RPC codes are negative: a number in this range is an HTTP status.
      if (typeof value === 'number' && value >= 100 && value <= 599) return value;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A server without `auth: oauth` that refuses us with 401/403: retrying cannot help, the operator must
 * give credentials. Undefined for every other failure.
 */
export function credentialsNeeded(server: string, error: unknown): string | undefined {
  const status = httpStatusOf(error);
  if (status !== 401 && status !== 403) return undefined;
  const answered = status === 401 ? '401 Unauthorized' : '403 Forbidden';
  return `server ${server}: the server answered ${answered}: set mcp_servers.${server}.auth to "oauth" and run: switchboard mcp login ${server}, or set the credentials it expects in mcp_servers.${server}.headers (e.g. Authorization)`;
}

/** An error page quoted into a message (the SDK puts the response body there) is noise: keep its text, short. */
export function withoutHtml(message: string, maxChars = 200): string {
  if (!/<(html|body|head|!doctype|h\d|p|div|title)\b/i.test(message)) return message;
  const text = message.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (HTML page shortened)` : text;
}

/** The message plus its causes (undici says only "fetch failed"; the cause says ECONNREFUSED 127.0.0.1:9). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [error.message];
  let cause = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (!parts.some((p) => p.includes(cause instanceof Error ? cause.message : ''))) parts.push(cause.message);
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.join(': ');
}

const LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'UND_ERR_SOCKET']);

/** Whether an error (or one of its causes) says the server cannot be reached at all: not a tool's own failure. */
export function connectionLost(error: unknown): boolean {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (LOST.has(String((current as { code?: unknown }).code))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A failed call, naming the server, the tool and (for a timeout) the setting to change. A call the
 * caller aborted (its run was cancelled) says so: the SDK reports an abort as a timeout-like error.
 */
export function callErrorMessage(server: Pick<ResolvedMcpServer, 'name' | 'timeoutMs'>, label: string, error: unknown, aborted?: AbortSignal): string {
  if (aborted?.aborted) {
    const why = aborted.reason instanceof Error ? aborted.reason.message : typeof aborted.reason === 'string' ? aborted.reason : '';
    return `server ${server.name}: ${label} was cancelled${why && !/aborted/i.test(why) ? `: ${why}` : ' (its run was cancelled)'}`;
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'REQUEST_TIMEOUT' || /timed? ?out/i.test(describeError(error))) {
    return `server ${server.name}: ${label} did not answer within ${server.timeoutMs / 1000} s (mcp_servers.${server.name}.timeout = ${server.timeoutMs / 1000})`;
  }
  return `server ${server.name}: ${label} failed: ${describeError(error)}`;
}

/**
 * Why a connect attempt failed, as the server's status says it: the error without HTML, the last
 * stderr lines of a stdio server that closed or exited, and the fix when a legacy-only client meets
 * a modern-only server.
 */
export function connectFailure(server: Pick<ResolvedMcpServer, 'name' | 'protocol'>, error: unknown, stderrTail: string): string {
  let reason = withoutHtml(describeError(error));
  if (!reason.startsWith(`server ${server.name}:`)) reason = `server ${server.name}: connect failed: ${reason}`;
  if (stderrTail && /closed|exited|EPIPE/i.test(reason)) reason += ` (stderr: ${stderrTail})`;
  if (server.protocol === 'legacy' && isModernOnlyRejection(error)) {
    reason += `; the server only speaks the modern era: set mcp_servers.${server.name}.protocol to auto or stateless`;
  }
  return reason;
}
