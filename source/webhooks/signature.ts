import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type AuthScheme = 'github' | 'gitlab' | 'standard' | 'none';
export type AuthResult = { ok: true; value: AuthScheme } | { ok: false; reason: string };

/** Standard Webhooks: signatures older or newer than this are refused (replay protection). */
export const STANDARD_TOLERANCE_MS = 5 * 60 * 1000;
/** No real signature header comes near this; longer values are refused before any hashing. */
const MAX_HEADER_CHARS = 1024;

export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Verifies a request against any of `secrets` (rotation). Every scheme present must verify: GitHub
 * `X-Hub-Signature-256`, GitLab `X-Gitlab-Token`, Standard Webhooks `webhook-signature`; one bad
 * signature refuses the request whatever else it carries, so a forged header is never outvoted by a
 * replayed good one. Never throws: garbage, over-long or non-ASCII values are a refusal like any other mismatch.
 */
export function verifyRequest(headers: HeaderBag, rawBody: Buffer, secrets: readonly string[], nowMs: number): AuthResult {
  // The first failure in this order refuses; else the first scheme that verified. No array per request.
  let verified: AuthResult | undefined;
  const github = header(headers, 'x-hub-signature-256');
  if (github !== undefined) {
    verified = verifyGithub(github, rawBody, secrets);
    if (!verified.ok) return verified;
  }
  const gitlab = header(headers, 'x-gitlab-token');
  if (gitlab !== undefined) {
    const result = verifyToken(gitlab, secrets);
    if (!result.ok) return result;
    verified ??= result;
  }
  const standard = header(headers, 'webhook-signature');
  if (standard !== undefined) {
    const result = verifyStandard(headers, standard, rawBody, secrets, nowMs);
    if (!result.ok) return result;
    verified ??= result;
  }
  return verified ?? { ok: false, reason: 'no signature header (X-Hub-Signature-256, X-Gitlab-Token or webhook-signature)' };
}

/** `sha256=` and 64 lowercase hex digits: the only shape GitHub sends (and the only one that ever matched). */
const githubShape = /^sha256=[0-9a-f]{64}$/;

export function verifyGithub(value: string, rawBody: Buffer, secrets: readonly string[]): AuthResult {
  if (!isSane(value)) return { ok: false, reason: 'malformed X-Hub-Signature-256' };
  if (!githubShape.test(value)) return { ok: false, reason: 'X-Hub-Signature-256 does not match' };
  // Raw digests compared: one 32-byte buffer per secret, no hex strings.
  const given = Buffer.from(value.slice(7), 'hex');
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, value: 'github' };
  }
  return { ok: false, reason: 'X-Hub-Signature-256 does not match' };
}

/** GitLab sends the secret itself: compare digests, so neither content nor length leaks through timing. */
export function verifyToken(value: string, secrets: readonly string[]): AuthResult {
  if (!isSane(value)) return { ok: false, reason: 'malformed X-Gitlab-Token' };
  const given = createHash('sha256').update(value, 'utf8').digest();
  for (const secret of secrets) {
    if (timingSafeEqual(given, createHash('sha256').update(secret, 'utf8').digest())) return { ok: true, value: 'gitlab' };
  }
  return { ok: false, reason: 'X-Gitlab-Token does not match' };
}

export function verifyStandard(headers: HeaderBag, signatures: string, rawBody: Buffer, secrets: readonly string[], nowMs: number): AuthResult {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  if (id === undefined || timestamp === undefined) return { ok: false, reason: 'webhook-signature without webhook-id and webhook-timestamp' };
  if (!isSane(signatures) || !isSane(id) || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed Standard Webhooks headers' };
  if (Math.abs(nowMs - Number(timestamp) * 1000) > STANDARD_TOLERANCE_MS) return { ok: false, reason: 'webhook-timestamp outside the 5-minute tolerance' };
  const given = signatures.split(' ').filter((part) => part.startsWith('v1,')).map((part) => Buffer.from(part.slice(3), 'utf8'));
  for (const secret of secrets) {
    const signed = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
    const expected = Buffer.from(signed, 'utf8');
    if (given.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) return { ok: true, value: 'standard' };
  }
  return { ok: false, reason: 'webhook-signature does not match' };
}

/** Standard Webhooks secrets `whsec_<base64>` are keys in base64; anything else is used as text. */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/** Signs like GitHub does: for tests, `webhook test` and the benchmark. */
export function signGithub(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signStandard(secret: string, id: string, timestampSeconds: number, body: Buffer | string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}

/** A header's single value; repeated headers are refused by taking none. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value.length === 1 ? value[0] : '') : undefined;
}

function isSane(value: string): boolean {
  return value.length > 0 && value.length <= MAX_HEADER_CHARS && /^[\x20-\x7e]*$/.test(value);
}
