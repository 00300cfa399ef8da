import type { Logger } from 'pino';
import type { HttpClient } from './http-fetch.js';
import { asNeedsLogin, createOAuthProvider, withTokenEndpointUserAgent } from './oauth-provider.js';
import type { ResolvedMcpServer } from './server-config.js';
import type { TransportAuth } from './session.js';
import type { TokenStores } from './token-store.js';

/**
 * What a connection to an `auth: oauth` server does without a person: stored tokens and refresh only,
 * anything that needs a login ends in `needs-login`, and a login made elsewhere is noticed in the store
 * (the token file's mtime, or the PostgreSQL row's version). Every method is a no-op for other servers.
 */
export function createHeadlessOAuth(deps: { server: ResolvedMcpServer; tokens?: TokenStores; logger: Logger; now: () => number }) {
  const { server } = deps;
  const oauth = server.auth === 'oauth';
  const store = oauth && deps.tokens ? deps.tokens.of(server.name) : undefined;
  return {
    /** The provider and token-endpoint fetch for the transport (undefined for servers without OAuth). */
    async transportAuth(http: HttpClient | undefined): Promise<TransportAuth | undefined> {
      if (!store || !http) return undefined; // the connection refuses an OAuth server without a token store
      const handle = await createOAuthProvider({ server: server.name, oauth: server.oauth!, store, logger: deps.logger, now: deps.now, mode: { kind: 'headless' } });
      return { provider: handle.provider, fetch: handle.guardRefresh(withTokenEndpointUserAgent(http.fetch, server.oauth?.userAgent, handle.tokenEndpoint)) };
    },
    /** The error means "log in again" (see asNeedsLogin); undefined for every other failure and server. */
    needsLogin: (error: unknown) => (oauth ? asNeedsLogin(server.name, error) : undefined),
    /**
     * From now on: has a login (here, in another process or on another node) rewritten the tokens? A
     * store that cannot be read (PostgreSQL away) answers "no" and is asked again at the next check.
     */
    async tokensChangedFromNow(): Promise<() => Promise<boolean>> {
      const read = () => (store ? store.version().catch(() => undefined) : Promise.resolve(0));
      const seen = await read();
      return async () => {
        const now = await read();
        return store !== undefined && now !== undefined && now !== seen;
      };
    },
  };
}

export type HeadlessOAuth = ReturnType<typeof createHeadlessOAuth>;
