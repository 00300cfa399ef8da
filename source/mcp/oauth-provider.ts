import type { Logger } from 'pino';
import type {
  OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { FetchFn } from './http-fetch.js';
import { DEFAULT_CLIENT_NAME, type ResolvedOAuth } from './oauth-config.js';
import { fromSaved, toSaved, type SavedTokens, type TokenStore } from './token-store.js';

/** The server needs an interactive login; the gateway never opens a browser by itself. */
export class NeedsLoginError extends Error {
  readonly code = 'MCP_NEEDS_LOGIN';
  constructor(readonly server: string, why: string) {
    super(`server ${server}: ${why}; run: switchboard mcp login ${server}`);
  }
}

/** Our NeedsLoginError anywhere in the cause chain (the transports wrap what the provider throws). */
function findNeedsLogin(error: unknown): NeedsLoginError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    if ((current as { code?: unknown }).code === 'MCP_NEEDS_LOGIN') return current as NeedsLoginError;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Any sign that the server wants a new authorization: our NeedsLoginError, the SDK's UnauthorizedError,
 * or a 401 after the one refresh-and-retry the transports make. Undefined for every other failure.
 */
export function asNeedsLogin(server: string, error: unknown): NeedsLoginError | undefined {
  const found = findNeedsLogin(error);
  if (found) return found;
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const e = current as { name?: unknown; code?: unknown; status?: unknown; data?: { status?: unknown } };
    if (e.name === 'UnauthorizedError' || e.code === 'CLIENT_HTTP_AUTHENTICATION' || e.status === 401 || e.data?.status === 401) {
      return new NeedsLoginError(server, 'the server still answers 401 after a token refresh');
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface OAuthProviderDeps {
  server: string;
  oauth: ResolvedOAuth;
  store: TokenStore;
  logger: Logger;
  now: () => number;
  /**
   * `headless`: stored tokens and refresh only; anything needing a person throws NeedsLoginError.
   * `login`: a fresh authorization (stored tokens are ignored) through `onAuthorizationUrl`.
   */
  mode: { kind: 'headless' } | { kind: 'login'; redirectUrl: string; state: string; onAuthorizationUrl(url: URL): void };
}

/**
 * Our OAuthClientProvider (SDK v2): tokens in a TokenStore (files, or PostgreSQL in cluster mode), CIMD or
 * DCR (spec 5.3), the `cimd-off` marker (spec 3.2). Every read goes to the store, so a login or refresh
 * made by another node or process is used at the next request; only the marker is read once per provider.
 */
export async function createOAuthProvider(deps: OAuthProviderDeps) {
  const { server, oauth, store, logger, mode } = deps;
  let verifier: string | undefined;
  let freshTokens: StoredOAuthTokens | undefined;
  let lastClientId: string | undefined;
  let refused = await store.documentRefused();
  let discovery: OAuthDiscoveryState | undefined = mode.kind === 'headless' ? (await store.readTokenFile()).discovery : undefined;

  // The SDK reads `clientMetadataUrl` synchronously: the marker is read when the provider is made.
  const documentUrl = (): string | undefined => (oauth.cimd && !refused ? oauth.clientMetadataUrl : undefined);
  // Headless needs some redirect URL for the SDK to take the authorization-code path; it is never used.
  const redirectUrl = mode.kind === 'login' ? mode.redirectUrl : 'http://127.0.0.1/callback';

  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadataUrl() {
      return documentUrl();
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: oauth.clientName ?? DEFAULT_CLIENT_NAME,
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: oauth.tokenEndpointAuthMethod ?? (oauth.clientSecret ? 'client_secret_basic' : 'none'),
      };
    },
    state: mode.kind === 'login' ? () => mode.state : undefined,

    async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
      // When the server takes documents, the document wins over an older DCR registration (spec 3.2: after
      // `mcp login` clears the marker, the document is tried again); undefined lets the SDK pick it.
      const documentFirst = documentUrl() !== undefined && discovery?.authorizationServerMetadata?.client_id_metadata_document_supported === true;
      const info = configuredClient(oauth) ?? (documentFirst ? await documentClient() : (await store.readRegistration()) ?? (await documentClient()));
      lastClientId = info?.client_id;
      if (!info && mode.kind === 'headless') throw new NeedsLoginError(server, 'not logged in (no client registration or tokens)');
      return info;
    },
    async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
      if (oauth.clientId !== undefined && info.client_id === oauth.clientId) return; // pre-registered in config.json
      if (info.client_id === oauth.clientMetadataUrl) await store.updateTokenFile((file) => ({ ...file, documentClient: info }));
      else await store.writeRegistration(info);
      lastClientId = info.client_id;
    },

    async tokens(): Promise<StoredOAuthTokens | undefined> {
      if (mode.kind === 'login') return freshTokens;
      const saved = (await store.readTokenFile()).tokens;
      return saved ? fromSaved(saved, deps.now()) : undefined;
    },
    async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
      const previous = mode.kind === 'login' ? undefined : (await store.readTokenFile()).tokens;
      // A refresh answer without a new refresh token keeps the old one (spec 3.2).
      const kept = !tokens.refresh_token && previous?.refresh_token ? { ...tokens, refresh_token: previous.refresh_token } : tokens;
      // Saved already, under the lock, by the refresh (guardRefresh): writing again could only put back older tokens.
      if (previous && sameTokens(previous, kept)) return;
      if (mode.kind === 'login') freshTokens = kept;
      await store.updateTokenFile(({ pendingScope, ...file }) => ({
        ...file, tokens: toSaved(kept, deps.now()), discovery: discovery ?? file.discovery, ...(mode.kind === 'login' ? {} : { pendingScope }),
      }));
    },

    async redirectToAuthorization(url: URL): Promise<void> {
      if (mode.kind === 'headless') {
        const scope = url.searchParams.get('scope');
        if (scope) await store.updateTokenFile((file) => ({ ...file, pendingScope: scope }));
        throw new NeedsLoginError(server, 'authorization needed (no tokens, the refresh failed, or a wider scope is required)');
      }
      // A step-up recorded while headless: ask for its scope as well.
      const wanted = unionScopes(url.searchParams.get('scope'), (await store.readTokenFile()).pendingScope);
      if (wanted) url.searchParams.set('scope', wanted);
      mode.onAuthorizationUrl(url);
    },
    saveCodeVerifier(codeVerifier: string): void {
      verifier = codeVerifier;
    },
    codeVerifier(): string {
      if (!verifier) throw new Error(`server ${server}: no PKCE code verifier for this login`);
      return verifier;
    },

    saveDiscoveryState(state: OAuthDiscoveryState): void {
      discovery = state;
    },
    discoveryState: () => discovery,

    async invalidateCredentials(scope): Promise<void> {
      if (scope === 'client' || scope === 'all') await dropClient();
      if (scope === 'tokens' || scope === 'all') {
        freshTokens = undefined;
        await store.updateTokenFile(({ tokens: _dropped, ...rest }) => rest);
      }
      if (scope === 'discovery' || scope === 'all') {
        discovery = undefined;
        await store.updateTokenFile(({ discovery: _dropped, ...rest }) => rest);
      }
    },
  };

  async function documentClient(): Promise<StoredOAuthClientInformation | undefined> {
    const url = documentUrl();
    if (!url) return undefined;
    const saved = (await store.readTokenFile()).documentClient;
    return saved?.client_id === url ? saved : undefined;
  }

  /** The token endpoint refused our client: a refused document means the marker and DCR from then on. */
  async function dropClient(): Promise<void> {
    if (lastClientId !== undefined && lastClientId === oauth.clientMetadataUrl) {
      logger.warn(`server ${server}: the authorization server refused the client metadata document ${lastClientId} (invalid_client); using dynamic client registration from now on (marker ${store.where.marker}; switchboard mcp login ${server} tries the document again)`);
      await store.writeMarker(`invalid_client for ${lastClientId} at ${new Date(deps.now()).toISOString()}`);
      refused = true;
      await store.updateTokenFile(({ documentClient: _dropped, ...rest }) => rest);
    } else if (lastClientId !== undefined && lastClientId !== oauth.clientId) {
      await store.removeRegistration();
    }
    lastClientId = undefined;
  }

  return {
    provider,
    /** The token endpoint once discovery found it (for the `user_agent` fetch). */
    tokenEndpoint: (): string | undefined => discovery?.authorizationServerMetadata?.token_endpoint,
    discovery: () => discovery,
    /** The fetch for the transport: refreshes one at a time (see guardRefresh). */
    guardRefresh: (fetch: FetchFn): FetchFn => (mode.kind === 'login' ? fetch : guardRefresh({ fetch, store, server, logger, now: deps.now })),
  };
}

/** How long a refresh may hold the server's lock at the token endpoint. */
const REFRESH_TIMEOUT_MS = 30_000;

/**
 * One refresh at a time per server (issue #19). The SDK refreshes inside `auth()` after a 401:
 * `tokens()`, then a POST with `grant_type=refresh_token` through our fetch, then `saveTokens()`.
 * This fetch notes which access tokens were answered 401, and runs that POST in the store's
 * `exclusive` (the row lock in PostgreSQL). There the row is read again: when it holds an access
 * token that was not refused (another node, or another request of this one, refreshed meanwhile),
 * that is returned as the token endpoint's answer without a call, since a refresh token may be
 * single-use. Otherwise the refresh is made and saved before the lock is released.
 */
function guardRefresh(deps: { fetch: FetchFn; store: TokenStore; server: string; logger: Logger; now: () => number }): FetchFn {
  const { fetch, store } = deps;
  const refused: string[] = [];
  return async (url, init) => {
    const params = init?.body instanceof URLSearchParams ? init.body : undefined;
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || params?.get('grant_type') !== 'refresh_token') {
      const response = await fetch(url, init);
      const bearer = /^Bearer (.+)$/i.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
      if (response.status === 401 && bearer && !refused.includes(bearer)) {
        refused.push(bearer);
        if (refused.length > 16) refused.shift();
      }
      return response;
    }
    return store.exclusive(async (current, save) => {
      const stored = current.tokens;
      const expired = stored?.expires_at !== undefined && Date.parse(stored.expires_at) <= deps.now();
      if (stored?.access_token && !refused.includes(stored.access_token) && !expired) {
        deps.logger.info(`server ${deps.server}: OAuth tokens were refreshed elsewhere meanwhile; using them`);
        const { issuer: _issuer, ...answer } = fromSaved(stored, deps.now());
        return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
      }
      // The row's refresh token: ours, unless another writer replaced it (then ours may be spent).
      if (stored?.refresh_token) params.set('refresh_token', stored.refresh_token);
      // The row stays locked until this answers: bounded, so a hung token endpoint cannot hold every node.
      const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(REFRESH_TIMEOUT_MS)]) : AbortSignal.timeout(REFRESH_TIMEOUT_MS);
      const response = await fetch(url, { ...init, signal });
      if (!response.ok) return response; // the SDK reads the error (invalid_grant: log in again)
      const answer = await response.clone().json().catch(() => undefined) as Partial<StoredOAuthTokens> | undefined;
      if (typeof answer?.access_token === 'string' && typeof answer.token_type === 'string') {
        const refreshed = pickTokens({ ...answer, refresh_token: answer.refresh_token ?? params.get('refresh_token') ?? undefined, issuer: stored?.issuer });
        await save({ ...current, tokens: toSaved(refreshed, deps.now()) });
      }
      return response;
    });
  };
}

/** The token response's fields we keep (never whatever else an authorization server adds). */
function pickTokens(answer: Partial<StoredOAuthTokens>): StoredOAuthTokens {
  const keys = ['access_token', 'token_type', 'expires_in', 'scope', 'refresh_token', 'id_token', 'issuer'] as const;
  return Object.fromEntries(keys.filter((key) => answer[key] !== undefined).map((key) => [key, answer[key]])) as unknown as StoredOAuthTokens;
}

function sameTokens(saved: SavedTokens, next: StoredOAuthTokens): boolean {
  return saved.access_token === next.access_token && saved.refresh_token === next.refresh_token && saved.issuer === next.issuer;
}

function unionScopes(...scopes: Array<string | null | undefined>): string | undefined {
  const all = [...new Set(scopes.flatMap((s) => (s ? s.split(/\s+/) : [])).filter(Boolean))];
  return all.length > 0 ? all.join(' ') : undefined;
}

function configuredClient(oauth: ResolvedOAuth): StoredOAuthClientInformation | undefined {
  if (oauth.clientId === undefined) return undefined;
  return {
    client_id: oauth.clientId,
    ...(oauth.clientSecret !== undefined ? { client_secret: oauth.clientSecret } : {}),
    ...(oauth.tokenEndpointAuthMethod !== undefined ? { token_endpoint_auth_method: oauth.tokenEndpointAuthMethod } : {}),
  };
}

/**
 * `oauth.user_agent` on token-endpoint requests only (code exchange and refresh, spec 5.3 item 4):
 * every other request (MCP traffic, discovery, registration) goes out unchanged.
 */
export function withTokenEndpointUserAgent(fetch: FetchFn, userAgent: string | undefined, tokenEndpoint: () => string | undefined): FetchFn {
  if (!userAgent) return fetch;
  return (url, init) => {
    const endpoint = tokenEndpoint();
    const target = typeof url === 'string' ? url : url.href;
    if (!endpoint || (init?.method ?? 'GET').toUpperCase() !== 'POST' || stripQuery(target) !== stripQuery(endpoint)) return fetch(url, init);
    const headers = new Headers(init?.headers);
    headers.set('user-agent', userAgent);
    return fetch(url, { ...init, headers });
  };
}

function stripQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
