import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

/** What the peers saw, for assertions: every request with its User-Agent. */
export interface SeenRequest {
  peer: 'as' | 'mcp';
  method: string;
  path: string;
  userAgent?: string;
}

export interface AuthServerOptions {
  /** Access token lifetime; short ones let tests see a refresh. */
  accessTokenTtlSeconds?: number;
  /**
   * Advertise `client_id_metadata_document_supported` and play an AS that accepts the document at the
   * authorization endpoint but answers `invalid_client` at the token endpoint (spec 3.2's refusal).
   */
  refuseDocument?: string;
}

/**
 * A real authorization server (oidc-provider: DCR, PKCE, refresh tokens, resource indicators) on
 * 127.0.0.1, and an MCP server (`@modelcontextprotocol/server` over node http) that answers only with
 * one of its access tokens. The interaction step approves at once, so a "browser" follows redirects.
 */
export async function startOAuthPeers(options: AuthServerOptions = {}) {
  const seen: SeenRequest[] = [];
  const asServer = http.createServer();
  const mcpServer = http.createServer();
  await Promise.all([listen(asServer), listen(mcpServer)]);
  const issuer = `http://127.0.0.1:${(asServer.address() as AddressInfo).port}`;
  const mcpOrigin = `http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}`;
  const mcpUrl = `${mcpOrigin}/mcp`;
  const refused = new Set<string>();
  let documentCodes = 0;
  let stripRefreshTokens = false;
  /** Set while refreshes are held: each refresh request waits for it to resolve. */
  let refreshGate: Promise<void> | undefined;
  const counted = { refreshes: 0 };
  /**
   * Token requests read here, then passed on to oidc-provider: counted by grant, held while refreshes
   * are held, and without a refresh_token in refresh answers when stripped (an AS that does not rotate
   * and does not repeat it).
   */
  const forwardToken = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = await readBody(req);
    const refresh = new URLSearchParams(body.toString()).get('grant_type') === 'refresh_token';
    if (refresh) {
      counted.refreshes += 1;
      await refreshGate;
    }
    const headers: Record<string, string> = { 'x-proxied': '1' };
    for (const name of ['content-type', 'authorization', 'user-agent', 'accept']) if (req.headers[name]) headers[name] = String(req.headers[name]);
    const answer = await fetch(`${issuer}/token`, { method: 'POST', headers, body });
    const json = (await answer.json()) as Record<string, unknown>;
    if (stripRefreshTokens && refresh) delete json.refresh_token;
    send(res, answer.status, json);
  };

  const provider = new Provider(issuer, {
    clients: [],
    scopes: ['mcp', 'offline_access'],
    features: {
      registration: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'mcp offline_access', accessTokenFormat: 'opaque', accessTokenTTL: options.accessTokenTtlSeconds ?? 3600 }),
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { AccessToken: options.accessTokenTtlSeconds ?? 3600 },
  });
  const providerCallback = provider.callback();

  asServer.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.headers['x-proxied']) return providerCallback(req, res);
    seen.push({ peer: 'as', method: req.method ?? 'GET', path: url.pathname, userAgent: req.headers['user-agent'] });
    void (async () => {
      if (url.pathname.startsWith('/interaction/')) return approve(provider, req, res);
      if (options.refuseDocument && url.pathname === '/.well-known/oauth-authorization-server') {
        const upstream = await fetch(`${issuer}/.well-known/openid-configuration`);
        const metadata = { ...(await upstream.json()) as object, client_id_metadata_document_supported: true };
        return send(res, 200, metadata);
      }
      if (options.refuseDocument && url.pathname === '/auth' && url.searchParams.get('client_id') === options.refuseDocument) {
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'document-code');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        back.searchParams.set('iss', issuer);
        documentCodes += 1;
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if ((stripRefreshTokens || refreshGate) && url.pathname === '/token' && req.method === 'POST' && !req.headers['x-proxied']) return forwardToken(req, res);
      // The token request that follows the document's authorization: refused (the body is left unread for oidc-provider).
      if (documentCodes > 0 && url.pathname === '/token' && req.method === 'POST') {
        documentCodes -= 1;
        return send(res, 401, { error: 'invalid_client', error_description: 'client metadata document refused' });
      }
      // oidc-provider serves its metadata at openid-configuration; the SDK also asks RFC 8414's path.
      if (url.pathname === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
      providerCallback(req, res);
    })().catch((error: Error) => send(res, 500, { error: 'server_error', error_description: error.message }));
  });

  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('whoami', { description: 'Who the token belongs to', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'alice' }] }));
    return server;
  });
  const resourceMetadata = `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;
  mcpServer.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', mcpOrigin);
    seen.push({ peer: 'mcp', method: req.method ?? 'GET', path: url.pathname, userAgent: req.headers['user-agent'] });
    void (async () => {
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return send(res, 200, { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ['mcp', 'offline_access'] });
      }
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const found = token && !refused.has(token) ? await provider.AccessToken.find(token) : undefined;
      if (!found || found.isExpired) {
        res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${resourceMetadata}"`, 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      const body = await readBody(req);
      const response = await handler.fetch(new Request(`${mcpOrigin}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: body.length > 0 ? body : undefined }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch((error: Error) => send(res, 500, { error: error.message }));
  });

  return {
    issuer,
    mcpUrl,
    seen,
    provider,
    /** This access token is refused from now on (the MCP server answers 401). */
    refuseToken: (token: string) => refused.add(token),
    stripRefreshTokens: () => (stripRefreshTokens = true),
    /** From now on token requests are counted (`refreshes`), and refreshes wait until the returned release is called. */
    holdRefreshes(): () => void {
      let release!: () => void;
      refreshGate = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    /** Refresh requests seen since `holdRefreshes` or `stripRefreshTokens`. */
    refreshes: () => counted.refreshes,
    close: async () => {
      for (const server of [asServer, mcpServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

export type OAuthPeers = Awaited<ReturnType<typeof startOAuthPeers>>;

/** Logs in and consents at once: login first, then a grant for whatever the consent prompt is missing. */
async function approve(provider: Provider, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId ? (await provider.Grant.find(details.grantId))! : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * The browser step: follows redirects (keeping cookies) from the authorization URL until one points at
 * its redirect_uri, then returns that URL (without visiting it).
 */
export async function approveInBrowser(authorizationUrl: string): Promise<string> {
  const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error(`no redirect_uri in ${authorizationUrl}`);
  const cookies = new Map<string, string>();
  let next = authorizationUrl;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(`${redirectUri}?`)) return next;
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization flow stopped at ${next} with HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects in the authorization flow');
}

function listen(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
