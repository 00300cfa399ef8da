/** The `oauth` mapping of an HTTP server entry (spec 2.3) and the client metadata document rules (spec 5.3). */

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The callback ports a client metadata document declares (spec 3.2, 8). */
export const PINNED_CALLBACK_PORTS = [27890, 27891, 27892, 27893, 27894] as const;
export const CALLBACK_PATH = '/callback';
export const DEFAULT_CLIENT_NAME = 'Switchboard';

export interface ResolvedOAuth {
  clientMetadataUrl?: string;
  /** false: `cimd: false`, dynamic client registration only. */
  cimd: boolean;
  userAgent?: string;
  clientId?: string;
  clientSecret?: string;
  clientName?: string;
  tokenEndpointAuthMethod?: string;
  redirectUri?: string;
  redirectPort?: number;
}

/** Keys of spec 2.3 that, when set, force a random callback port (spec 3.2 item 2). */
export const PORT_FORCING_OVERRIDES = ['client_id', 'client_secret', 'client_name', 'token_endpoint_auth_method', 'redirect_uri', 'redirect_port'] as const;

export function resolveOAuth(value: unknown): ResolvedOAuth {
  const o = (value ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return {
    clientMetadataUrl: text(o.client_metadata_url),
    cimd: o.cimd !== false,
    userAgent: text(o.user_agent),
    clientId: text(o.client_id),
    clientSecret: text(o.client_secret),
    clientName: text(o.client_name),
    tokenEndpointAuthMethod: text(o.token_endpoint_auth_method),
    redirectUri: text(o.redirect_uri),
    redirectPort: typeof o.redirect_port === 'number' && Number.isInteger(o.redirect_port) ? o.redirect_port : undefined,
  };
}

/** The overrides present, by config key name (empty: the callback port may be pinned). */
export function overridesSet(oauth: ResolvedOAuth): string[] {
  const values: Record<(typeof PORT_FORCING_OVERRIDES)[number], unknown> = {
    client_id: oauth.clientId, client_secret: oauth.clientSecret, client_name: oauth.clientName,
    token_endpoint_auth_method: oauth.tokenEndpointAuthMethod, redirect_uri: oauth.redirectUri, redirect_port: oauth.redirectPort,
  };
  return PORT_FORCING_OVERRIDES.filter((key) => values[key] !== undefined);
}

/**
 * Spec 5.3 item 3, the URL part, one rule each: HTTPS, a path (no bare origin), no fragment, no userinfo,
 * no `.` or `..` segments. Checked on the raw text: `new URL()` would quietly remove dot segments.
 * Each returns why the URL fails, or undefined.
 */
export const DOCUMENT_URL_RULES: ReadonlyArray<{ name: string; failure(raw: string): string | undefined }> = [
  { name: 'is an https URL', failure: (raw) => (parse(raw)?.protocol === 'https:' ? undefined : parse(raw) ? 'must use https' : 'is not a URL') },
  { name: 'has a path (not a bare origin)', failure: (raw) => (['', '/'].includes(rawPath(raw)) ? 'needs a path (a bare origin is not a document URL)' : undefined) },
  { name: 'has no fragment', failure: (raw) => (raw.includes('#') ? 'must not have a fragment (#...)' : undefined) },
  { name: 'has no userinfo', failure: (raw) => (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw) ? 'must not carry userinfo (user:password@)' : undefined) },
  { name: 'has no . or .. path segments', failure: (raw) => (rawPath(raw).split('/').map(decodeSegment).some((s) => s === '.' || s === '..') ? 'must not contain "." or ".." path segments' : undefined) },
];

export function checkClientMetadataUrl(raw: string): Checked<string> {
  for (const rule of DOCUMENT_URL_RULES) {
    const why = rule.failure(raw);
    if (why) return { ok: false, reason: `"${raw}" ${why}` };
  }
  return { ok: true, value: raw };
}

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function rawPath(raw: string): string {
  return raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/, '');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `http://127.0.0.1:<port>/callback` and `http://localhost:<port>/callback` for the five pinned ports. */
export function loopbackRedirectUris(): string[] {
  return PINNED_CALLBACK_PORTS.flatMap((port) => [`http://127.0.0.1:${port}${CALLBACK_PATH}`, `http://localhost:${port}${CALLBACK_PATH}`]);
}

/** The document to host at `url` (`switchboard mcp client-metadata --url <url>`). */
export function clientMetadataDocument(url: string, clientName = DEFAULT_CLIENT_NAME) {
  return {
    client_id: url,
    client_name: clientName,
    redirect_uris: loopbackRedirectUris(),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}
