import type { FetchFn } from './http-fetch.js';
import { DOCUMENT_URL_RULES, loopbackRedirectUris } from './oauth-config.js';

export interface MetadataCheck {
  check: string;
  ok: boolean;
  /** Why it failed (or what was seen), for the operator. */
  detail?: string;
}

/**
 * `switchboard mcp check-metadata`: every requirement of spec 5.3 item 3 on a self-hosted client metadata
 * document, one result each. The document is fetched without following redirects.
 */
export async function checkClientMetadataDocument(url: string, fetch: FetchFn, timeoutMs = 10_000): Promise<MetadataCheck[]> {
  const checks: MetadataCheck[] = DOCUMENT_URL_RULES.map((rule) => {
    const why = rule.failure(url);
    return { check: `URL ${rule.name}`, ok: !why, detail: why };
  });
  const later = ['answers 200 without a redirect', 'Content-Type is application/json', 'body is a JSON object', 'client_id equals the document URL', 'declares all ten loopback redirect URIs'];
  const skip = (from: number, why: string) => checks.push(...later.slice(from).map((check) => ({ check, ok: false, detail: `not checked: ${why}` })));
  if (checks.some((c) => !c.ok && c.check === 'URL is an https URL')) {
    skip(0, 'the URL is not usable');
    return checks;
  }
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    checks.push({ check: later[0]!, ok: false, detail: `fetch failed: ${describe(error)}` });
    skip(1, 'no answer');
    return checks;
  }
  const location = response.headers.get('location');
  checks.push({ check: later[0]!, ok: response.status === 200, detail: response.status === 200 ? undefined : `HTTP ${response.status}${location ? ` redirecting to ${location}` : ''}` });
  const type = response.headers.get('content-type') ?? '';
  checks.push({ check: later[1]!, ok: /^application\/json\s*(;|$)/i.test(type), detail: /^application\/json\s*(;|$)/i.test(type) ? undefined : `got "${type || '(none)'}"` });
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    checks.push({ check: later[2]!, ok: false, detail: 'the body does not parse as a JSON object' });
    skip(3, 'no JSON object');
    return checks;
  }
  checks.push({ check: later[2]!, ok: true });
  const doc = body as { client_id?: unknown; redirect_uris?: unknown };
  checks.push({ check: later[3]!, ok: doc.client_id === url, detail: doc.client_id === url ? undefined : `client_id is ${JSON.stringify(doc.client_id)}` });
  const declared = Array.isArray(doc.redirect_uris) ? doc.redirect_uris.map(String) : [];
  const missing = loopbackRedirectUris().filter((uri) => !declared.includes(uri));
  checks.push({ check: later[4]!, ok: missing.length === 0, detail: missing.length === 0 ? undefined : `missing ${missing.join(', ')}` });
  return checks;
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string; code?: string } };
  return [e.message, e.cause?.code ?? e.cause?.message].filter(Boolean).join(': ');
}
