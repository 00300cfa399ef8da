import { Client, SSEClientTransport, StreamableHTTPClientTransport, type ClientCapabilities, type ListChangedHandlers, type OAuthClientProvider, type Transport } from '@modelcontextprotocol/client';
import type { FetchFn, HttpClient } from './http-fetch.js';
import type { ResolvedMcpServer } from './server-config.js';
import { isModernOnlyRejection } from './era-errors.js';
import { GroupStdioTransport } from './stdio-transport.js';
import type { StderrRing } from './stderr-ring.js';

export const MODERN_VERSION = '2026-07-28';
export type McpEra = 'legacy' | 'modern';

export interface McpSession {
  client: Client;
  era: McpEra;
  protocolVersion: string | undefined;
  close(): Promise<void>;
}

export interface OpenSessionDeps {
  server: ResolvedMcpServer;
  stderr: StderrRing;
  http?: HttpClient;
  capabilities: ClientCapabilities;
  /** Registers the elicitation/sampling handlers on a fresh client. */
  setup(client: Client): void;
  signal: AbortSignal;
  clientInfo: { name: string; version: string };
  cwd?: string;
  listChanged?: ListChangedHandlers;
  /** `auth: oauth` servers: our provider, and the fetch that adds `oauth.user_agent` on token requests. */
  oauth?: TransportAuth;
}

export interface TransportAuth {
  provider: OAuthClientProvider;
  fetch: FetchFn;
}

/**
 * Connects in the era `protocol` asks for (spec 3.1, NOTES.md):
 * auto = legacy initialize, then modern on a modern-only rejection; stateless = modern first,
 * one legacy retry on a non-modern answer; legacy = handshake only.
 */
export async function openSession(deps: OpenSessionDeps): Promise<McpSession> {
  const { server } = deps;
  if (server.protocol === 'legacy') return attempt(deps, 'legacy');
  if (server.protocol === 'stateless') {
    try {
      return await attempt(deps, 'modern');
    } catch (error) {
      if (deps.signal.aborted) throw error;
      return attempt(deps, 'legacy');
    }
  }
  try {
    return await attempt(deps, 'legacy');
  } catch (error) {
    if (deps.signal.aborted || !isModernOnlyRejection(error)) throw error;
    try {
      return await attempt(deps, 'modern');
    } catch (modernError) {
      // -32601 alone is only a hint: when the discover probe does not confirm a modern server, the legacy error stands.
      throw hasCode(error, -32601) && !isModernOnlyRejection(modernError) ? error : modernError;
    }
  }
}

function hasCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

async function attempt(deps: OpenSessionDeps, era: McpEra): Promise<McpSession> {
  const client = new Client(deps.clientInfo, {
    capabilities: deps.capabilities,
    listChanged: deps.listChanged,
    versionNegotiation: era === 'modern' ? { mode: { pin: MODERN_VERSION } } : { mode: 'legacy' },
  });
  deps.setup(client);
  const transport = makeTransport(deps);
  try {
    await client.connect(transport, { signal: deps.signal, timeout: deps.server.connectTimeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw error;
  }
  return {
    client,
    era: client.getProtocolEra() ?? era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    close: async () => {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}

export function makeTransport(deps: Pick<OpenSessionDeps, 'server' | 'stderr' | 'http' | 'cwd' | 'oauth'>): Transport {
  const { server } = deps;
  if (server.transport === 'stdio') {
    return new GroupStdioTransport({ command: server.command!, args: server.args, env: server.env, stderr: deps.stderr, cwd: deps.cwd });
  }
  const url = new URL(server.url!);
  const requestInit: RequestInit = { headers: server.headers };
  const fetch = deps.oauth?.fetch ?? deps.http?.fetch;
  const authProvider = deps.oauth?.provider;
  if (server.transport === 'sse') return new SSEClientTransport(url, { requestInit, fetch, authProvider, eventSourceInit: fetch ? { fetch: withHeaders(fetch, server.headers) } : undefined });
  return new StreamableHTTPClientTransport(url, { requestInit, fetch, authProvider });
}

/** The SSE GET stream does not get requestInit's headers: add them in its fetch. */
function withHeaders(fetch: NonNullable<HttpClient['fetch']>, headers: Record<string, string>) {
  return (url: string | URL, init?: RequestInit) => {
    const merged = new Headers(init?.headers);
    for (const [key, value] of Object.entries(headers)) if (!merged.has(key)) merged.set(key, value);
    return fetch(url, { ...init, headers: merged });
  };
}
