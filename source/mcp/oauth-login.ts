import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { Client, OAuthError, UnauthorizedError, type Transport } from '@modelcontextprotocol/client';
import { createHttpClient } from './http-fetch.js';
import { openCallbackListener, type CallbackListener, type PortChoice } from './oauth-callback.js';
import { overridesSet, resolveOAuth, type Checked, type ResolvedOAuth } from './oauth-config.js';
import { createOAuthProvider, withTokenEndpointUserAgent } from './oauth-provider.js';
import type { ResolvedMcpServer } from './server-config.js';
import { describeError } from './connect-errors.js';
import { isModernOnlyRejection } from './era-errors.js';
import { makeTransport, MODERN_VERSION, type McpEra } from './session.js';
import { createStderrRing } from './stderr-ring.js';
import { fileTokenStores, type TokenStore, type TokenStores } from './token-store.js';

/** Spec 3.2 and 8: a login waits five minutes for the redirect. */
export const LOGIN_WAIT_MS = 5 * 60_000;

export interface LoginOptions {
  server: ResolvedMcpServer;
  /** `$SWITCHBOARD_HOME/mcp-tokens` (used when `tokens` is not given). */
  tokensDir?: string;
  /** Where the tokens go: the files in `tokensDir`, or the cluster's PostgreSQL. */
  tokens?: TokenStores;
  logger: Logger;
  now?: () => number;
  /** The authorization URL is ready: print it, open a browser. */
  onUrl(url: string, listener: Pick<CallbackListener, 'port' | 'pinned' | 'randomBecause' | 'redirectUrl'>): void;
  /** Progress worth telling the operator (the document refused, registering by DCR instead, ...). */
  onNotice?(text: string): void;
  signal?: AbortSignal;
  waitMs?: number;
}

export interface LoginResult {
  server: string;
  /** ISO time the access token expires, when the server said. */
  expiresAt?: string;
  /** The client was identified by the client metadata document (not DCR or a configured client_id). */
  usedDocument: boolean;
  /** Nothing to do: the server answered without asking for authorization. */
  notNeeded?: boolean;
}

export interface LoginHandle {
  /** A redirect URL pasted by the operator instead of the browser reaching the listener. */
  offer(redirected: string): Checked<true>;
  done: Promise<LoginResult>;
}


/** `switchboard mcp login <server>` and the console's login: a fresh authorization-code flow with PKCE. */
export function startLogin(options: LoginOptions): LoginHandle {
  const { server } = options;
  let current: CallbackListener | undefined;
  const done = (async () => {
    if (server.transport === 'stdio' || !server.url) throw new Error(`server ${server.name}: OAuth login applies to HTTP servers (url) only`);
    const stores = options.tokens ?? (options.tokensDir !== undefined ? fileTokenStores(options.tokensDir) : undefined);
    if (!stores) throw new Error(`server ${server.name}: no token store for the login`);
    const store = stores.of(server.name);
    const retryingDocument = await store.documentRefused();
    if (retryingDocument) {
      await store.clearMarker();
      options.onNotice?.(`server ${server.name}: cleared the earlier refusal of the client metadata document; trying it again`);
    }
    const first = await attempt(options, store, retryingDocument, (listener) => (current = listener));
    if (first.kind === 'done') return first.result;
    options.onNotice?.(`server ${server.name}: the authorization server refused the client metadata document (invalid_client); registering with dynamic client registration and authorizing again`);
    const second = await attempt(options, store, false, (listener) => (current = listener));
    if (second.kind === 'done') return second.result;
    throw new Error(`server ${server.name}: the authorization server refused the client again after dynamic client registration`);
  })();
  return {
    offer: (redirected) => (current ? current.offer(redirected) : { ok: false, reason: 'the login is not waiting for a redirect yet' }),
    done,
  };
}

type Attempt = { kind: 'done'; result: LoginResult } | { kind: 'document-refused' };

async function attempt(options: LoginOptions, store: TokenStore, retryingDocument: boolean, onListener: (l: CallbackListener) => void): Promise<Attempt> {
  const { server, logger } = options;
  const now = options.now ?? Date.now;
  const oauth = server.oauth ?? resolveOAuth(undefined);
  const state = crypto.randomBytes(32).toString('base64url');
  const listener = await openCallbackListener(await choosePort(oauth, store, retryingDocument), state);
  onListener(listener);
  const made = await createHttpClient(server);
  if (!made.ok) {
    await listener.close();
    throw new Error(made.reason);
  }
  const http = made.value;
  let authorizationUrl: URL | undefined;
  const handle = await createOAuthProvider({
    server: server.name, oauth, store, logger, now,
    mode: { kind: 'login', redirectUrl: oauth.redirectUri ?? listener.redirectUrl, state, onAuthorizationUrl: (url) => (authorizationUrl = url) },
  });
  const fetch = withTokenEndpointUserAgent(http.fetch, oauth.userAgent, handle.tokenEndpoint);
  const open: Array<{ client: Client; transport: Transport }> = [];
  /** Connects and lists tools in one era; resolves to the transport that met the 401, or 'authorized'. */
  const probe = async (era: McpEra): Promise<Transport | 'authorized'> => {
    const transport = makeTransport({ server, stderr: createStderrRing(undefined), http, oauth: { provider: handle.provider, fetch } });
    const client = new Client({ name: 'switchboard', version: '0.1.0' }, { versionNegotiation: era === 'modern' ? { mode: { pin: MODERN_VERSION } } : { mode: 'legacy' } });
    open.push({ client, transport });
    try {
      // Some servers let the handshake through and ask for a token at the first real request.
      await client.connect(transport, { signal: options.signal, timeout: server.connectTimeoutMs });
      if (client.getServerCapabilities()?.tools) await client.listTools(undefined, { timeout: server.connectTimeoutMs, signal: options.signal });
      return 'authorized';
    } catch (error) {
      if (error instanceof UnauthorizedError && authorizationUrl) return transport;
      throw error;
    }
  };
  try {
    let met: Transport | 'authorized';
    try {
      try {
        met = await probe(server.protocol === 'stateless' ? 'modern' : 'legacy');
      } catch (error) {
        if (server.protocol !== 'auto' || !isModernOnlyRejection(error)) throw error;
        met = await probe('modern');
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw describeAuthError(server.name, error, `reaching ${server.url}`);
    }
    if (met === 'authorized' || !authorizationUrl) return { kind: 'done', result: { server: server.name, usedDocument: false, notNeeded: true } };
    const transport = met;
    const usedDocument = oauth.clientMetadataUrl !== undefined && authorizationUrl.searchParams.get('client_id') === oauth.clientMetadataUrl;
    options.onUrl(authorizationUrl.href, listener);
    const params = await waitForRedirect(listener, options, usedDocument ? oauth.clientMetadataUrl : undefined);
    const refusedBefore = await store.documentRefused();
    try {
      await (transport as unknown as { finishAuth(params: URLSearchParams): Promise<void> }).finishAuth(params);
    } catch (error) {
      if (usedDocument && !refusedBefore && (await store.documentRefused())) return { kind: 'document-refused' };
      throw describeAuthError(server.name, error);
    }
    const saved = (await store.readTokenFile()).tokens;
    return { kind: 'done', result: { server: server.name, expiresAt: saved?.expires_at, usedDocument } };
  } finally {
    for (const { client, transport } of open) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    }
    await listener.close();
    await http.close().catch(() => {});
  }
}

/**
 * Spec 3.2: pinned for any flow that may use the client metadata document; random when an override is
 * set, a registration exists on disk (unless this login tries the document again after clearing the
 * marker), the cached metadata does not advertise the document, or no document is in play at all
 * (no `client_metadata_url`, or `cimd: false`).
 */
export async function choosePort(oauth: ResolvedOAuth, store: TokenStore, retryingDocument = false): Promise<PortChoice> {
  if (oauth.redirectPort !== undefined) return { kind: 'fixed', port: oauth.redirectPort };
  const fixed = oauth.redirectUri ? loopbackPort(oauth.redirectUri) : undefined;
  if (fixed) return { kind: 'fixed', ...fixed };
  const overrides = overridesSet(oauth);
  if (overrides.length > 0) return { kind: 'random', why: `oauth.${overrides.join(', oauth.')} set` };
  if (!oauth.clientMetadataUrl || !oauth.cimd) return { kind: 'random', why: oauth.clientMetadataUrl ? 'oauth.cimd is false' : 'no oauth.client_metadata_url' };
  if (await store.documentRefused()) return { kind: 'random', why: `the authorization server refused the client metadata document (${store.where.marker})` };
  if ((await store.hasRegistration()) && !retryingDocument) return { kind: 'random', why: `a client registration exists (${store.where.client})` };
  const metadata = (await store.readTokenFile()).discovery?.authorizationServerMetadata;
  if (metadata && !retryingDocument && metadata.client_id_metadata_document_supported !== true) return { kind: 'random', why: 'the cached authorization server metadata does not advertise client metadata documents' };
  return { kind: 'pinned' };
}

function loopbackPort(uri: string): { port: number; path: string } | undefined {
  try {
    const url = new URL(uri);
    // The listener binds 127.0.0.1 (where localhost resolves); any other redirect URI gets a random port and a pasted redirect.
    if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(url.hostname) || url.port === '') return undefined;
    return { port: Number(url.port), path: url.pathname };
  } catch {
    return undefined;
  }
}

async function waitForRedirect(listener: CallbackListener, options: LoginOptions, documentUrl: string | undefined): Promise<URLSearchParams> {
  const name = options.server.name;
  const waitMs = options.waitMs ?? LOGIN_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const minutes = `${Math.round(waitMs / 60_000) || waitMs / 60_000} minutes`;
      reject(new Error(documentUrl
        ? `server ${name}: no redirect within ${minutes}. The authorization server may be unable to fetch or accept the client metadata document ${documentUrl} (the browser shows an invalid-client error then): check it with switchboard mcp check-metadata ${name}, or set mcp_servers.${name}.oauth.cimd to false to use dynamic client registration`
        : `server ${name}: no redirect within ${minutes}; run switchboard mcp login ${name} again`));
    }, waitMs);
  });
  const aborted = new Promise<never>((_, reject) => {
    if (options.signal?.aborted) reject(new Error(`server ${name}: login cancelled`));
    options.signal?.addEventListener('abort', () => reject(new Error(`server ${name}: login cancelled`)), { once: true });
  });
  try {
    return await Promise.race([listener.result, timeout, aborted]);
  } finally {
    clearTimeout(timer);
  }
}

function describeAuthError(server: string, error: unknown, step?: string): Error {
  if (error instanceof OAuthError) return new Error(`server ${server}: login failed: the authorization server answered ${error.code}${error.message && error.message !== error.code ? ` (${error.message})` : ''}`);
  return new Error(`server ${server}: login failed${step ? ` ${step}` : ''}: ${describeError(error)}`);
}
