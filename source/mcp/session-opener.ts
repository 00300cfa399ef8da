import type { Tool } from '@modelcontextprotocol/client';
import type { ApprovalRequester } from '../agent/types.js';
import { FatalConnectError } from './connect-errors.js';
import type { HeadlessOAuth } from './headless-oauth.js';
import { createHttpClient, type HttpClient } from './http-fetch.js';
import { preflight } from './preflight.js';
import type { ResolvedMcpServer } from './server-config.js';
import { clientCapabilities, installServerRequestHandlers, type SampleFn } from './server-requests.js';
import type { McpSession } from './session.js';
import type { StderrRing } from './stderr-ring.js';

export interface SessionOpenerDeps {
  server: ResolvedMcpServer;
  stderr: StderrRing;
  headlessOAuth: HeadlessOAuth;
  /** Whether `auth: oauth` has somewhere to keep tokens. */
  hasTokenStore: boolean;
  approvals?: ApprovalRequester;
  sample?: SampleFn;
  now: () => number;
  clientInfo?: { name: string; version: string };
  /** The server said its tools changed and the SDK listed them again. */
  onToolsChanged(tools: Tool[]): void;
}

/**
 * Opens one MCP session within `connect_timeout`: the HTTP client (made once, kept across
 * reconnects), the streamable-HTTP preflight, OAuth, then the SDK's handshake in either era.
 */
export function createSessionOpener(deps: SessionOpenerDeps) {
  const { server } = deps;
  let http: HttpClient | undefined;

  async function open(): Promise<McpSession> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`connect_timeout of ${server.connectTimeoutMs / 1000} s reached`)), server.connectTimeoutMs);
    try {
      if (server.transport !== 'stdio') {
        if (!http) {
          const made = await createHttpClient(server);
          if (!made.ok) throw new FatalConnectError(made.reason);
          http = made.value;
        }
        if (server.transport === 'streamable-http' && !server.skipPreflight && server.auth !== 'oauth') {
          const checked = await preflight({ server: server.name, url: server.url!, headers: server.headers, fetch: http.fetch });
          if (!checked.ok) throw new FatalConnectError(checked.reason);
        }
      }
      if (server.auth === 'oauth' && !deps.hasTokenStore) throw new FatalConnectError(`server ${server.name}: auth: oauth needs a token store (mcp-tokens)`);
      const requestDeps = { server, approvals: deps.approvals, sample: deps.sample, now: deps.now };
      // Loaded on the first connect: a gateway without MCP servers never loads the MCP SDK.
      const { openSession } = await import('./session.js');
      const oauth = await deps.headlessOAuth.transportAuth(http);
      const opened = openSession({
        server, stderr: deps.stderr, http, signal: controller.signal, oauth,
        capabilities: clientCapabilities(requestDeps),
        setup: (client) => installServerRequestHandlers(client, requestDeps),
        clientInfo: deps.clientInfo ?? { name: 'switchboard', version: '0.1.0' },
        listChanged: { tools: { autoRefresh: true, onChanged: (error, tools) => { if (!error && tools) deps.onToolsChanged(tools); } } },
      });
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }));
      opened.then((s) => { if (controller.signal.aborted) void s.close(); }, () => {});
      return await Promise.race([opened, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    open,
    /** Closes the HTTP client's connections (the gateway stops or the server is removed). */
    async close(): Promise<void> {
      await http?.close().catch(() => {});
    },
  };
}
