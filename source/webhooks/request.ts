import { randomUUID } from 'node:crypto';
import { header, type HeaderBag } from './signature.js';

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; status: 400 | 415; reason: string };

/**
 * The payload of a verified request: `application/json` (or `+json`) holding a JSON object, or
 * GitHub's form encoding with the JSON in its `payload` field. Anything else is a reason, not an exception.
 */
export function parseBody(contentType: string | undefined, raw: Buffer | undefined): BodyResult {
  const text = raw?.toString('utf8') ?? '';
  // What nearly every sender sends: no split, trim and lowercase copies of the header.
  if (contentType === 'application/json') return jsonObject(text, 'body');
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return jsonObject(text, 'body');
  if (type === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) return { ok: false, status: 400, reason: 'Form-encoded body without a "payload" field' };
    return jsonObject(payload, '"payload" field');
  }
  if (type === '') return { ok: false, status: 415, reason: 'Missing Content-Type: send application/json' };
  return { ok: false, status: 415, reason: `Unsupported content type ${type}: send application/json` };
}

/**
 * How deeply a payload may nest objects and arrays. Real webhooks nest under 20 levels; a payload
 * thousands deep would overflow the stack of template rendering, so it is refused at parse time.
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of `[`/`{` outside strings: one pass over the text, no allocation. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index += 1; // backslash: skip the escaped character
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (code === 125 || code === 93) depth -= 1;
  }
  return deepest;
}

function jsonObject(text: string, what: string): BodyResult {
  // A test, not trim(): trim() copies the whole body (up to 1 MB) to find it is not empty.
  if (!/\S/.test(text)) return { ok: false, status: 400, reason: `Empty ${what}: expected a JSON object` };
  if (jsonDepth(text) > MAX_JSON_DEPTH) return { ok: false, status: 400, reason: `The ${what} nests deeper than ${MAX_JSON_DEPTH} levels (the limit for webhook payloads)` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, reason: `Invalid JSON in the ${what}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, status: 400, reason: `The ${what} must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** `X-GitHub-Event`, else `X-Gitlab-Event` (exact values); without one, eventOfPayload. */
export function eventHeader(headers: HeaderBag): string | undefined {
  return header(headers, 'x-github-event') || header(headers, 'x-gitlab-event');
}

/** The payload's `event_type`, else its `type`, else `unknown`: for senders without an event header. */
export function eventOfPayload(payload: Record<string, unknown> | undefined): string {
  if (typeof payload?.event_type === 'string' && payload.event_type !== '') return payload.event_type;
  if (typeof payload?.type === 'string' && payload.type !== '') return payload.type;
  return 'unknown';
}

/** `X-GitHub-Delivery`, `X-Request-ID`, `webhook-id`; else generatedDeliveryId() makes one, and then no deduplication (spec 6.5). */
export function givenDeliveryIdOf(headers: HeaderBag): string | undefined {
  return header(headers, 'x-github-delivery') || header(headers, 'x-request-id') || header(headers, 'webhook-id');
}

/** The id of a request that carries none (never deduplicated). */
export function generatedDeliveryId(): string {
  return `gen-${randomUUID()}`;
}

/** Headers kept with a delivery. Never the signature or GitLab's token (that one is the secret itself). */
const kept = ['content-type', 'user-agent', 'x-github-event', 'x-github-delivery', 'x-github-hook-id', 'x-gitlab-event', 'x-gitlab-instance',
  'x-gitlab-event-uuid', 'x-request-id', 'webhook-id', 'webhook-timestamp'];

export function selectHeaders(headers: HeaderBag): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of kept) {
    const value = header(headers, name);
    if (value !== undefined) out[name] = value.slice(0, 512);
  }
  return out;
}
