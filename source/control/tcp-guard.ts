/** What guards the optional TCP listener: loopback detection and the bearer token comparison. */
import net from 'node:net';
import { lazyCrypto } from '../infra/lazy-builtins.js';

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1).toLowerCase() : host.toLowerCase();
  if (bare === 'localhost') return true;
  const kind = net.isIP(bare);
  if (kind === 4) return bare.startsWith('127.');
  if (kind !== 6) return false;
  if (bare.startsWith('::ffff:') && net.isIP(bare.slice(7)) === 4) return bare.slice(7).startsWith('127.');
  return net.SocketAddress.parse(`[${bare}]:0`)?.address === '::1';
}

/**
 * Constant-time token check. Both sides are hashed first so the comparison always runs on 32
 * bytes: `timingSafeEqual` needs equal lengths, and an early length check would leak the length.
 */
export function tokenMatches(expected: string, given: string): boolean {
  const crypto = lazyCrypto();
  const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();
  return crypto.timingSafeEqual(digest(expected), digest(given));
}
