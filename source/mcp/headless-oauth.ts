import type { Logger } from 'pino';
import { mtimeOf } from '../infra/mtime.js';
import type { HttpClient } from './http-fetch.js';
import { asNeedsLogin, createOAuthProvider, withTokenEndpointUserAgent } from './oauth-provider.js';
import type { ResolvedMcpServer } from './server-config.js';
import type { TransportAuth } from './session.js';
import { createTokenStore } from './token-store.js';

/**
 * What a connection to an `auth: oauth` server does without a person: stored tokens and refresh only,
 * anything that needs a login ends in `needs-login`, and a login made elsewhere is noticed on disk.
 * Every method is a no-op for other servers.
 */
export function createHeadlessOAuth(deps: { server: ResolvedMcpServer; tokensDir?: string; logger: Logger; now: () => number }) {
  const { server } = deps;
  const oauth = server.auth === 'oauth';
  const store = oauth && deps.tokensDir ? createTokenStore(deps.tokensDir, server.name) : undefined;
  return {
    /** The provider and token-endpoint fetch for the transport (undefined for servers without OAuth). */
    transportAuth(http: HttpClient | undefined): TransportAuth | undefined {
      if (!store || !http) return undefined; // the connection refuses an OAuth server without a token folder
      const handle = createOAuthProvider({ server: server.name, oauth: server.oauth!, store, logger: deps.logger, now: deps.now, mode: { kind: 'headless' } });
      return { provider: handle.provider, fetch: withTokenEndpointUserAgent(http.fetch, server.oauth?.userAgent, handle.tokenEndpoint) };
    },
    /** The error means "log in again" (see asNeedsLogin); undefined for every other failure and server. */
    needsLogin: (error: unknown) => (oauth ? asNeedsLogin(server.name, error) : undefined),
    /** From now on: has a login (here or in another process) rewritten the token file? */
    tokensChangedFromNow(): () => boolean {
      const seen = store ? mtimeOf(store.files.tokens) : 0;
      return () => store !== undefined && mtimeOf(store.files.tokens) !== seen;
    },
  };
}
