import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../config/errors.js';
import type { ConfigFile } from '../config/types.js';

/** The environment variable that points a gateway at PostgreSQL; it wins over `store.url`. */
export const DATABASE_URL_ENV = 'SWITCHBOARD_DATABASE_URL';

/**
 * The PostgreSQL URL this gateway shares with its cluster, or null for the home's SQLite file.
 * The environment wins so that one config can be deployed to every node and pointed per deployment.
 */
export function databaseUrl(values: ConfigFile, env: Record<string, string | undefined> = process.env): string | null {
  const fromEnv = env[DATABASE_URL_ENV]?.trim();
  const url = fromEnv || values.store?.url?.trim() || null;
  if (url === null) return null;
  const where = fromEnv ? DATABASE_URL_ENV : 'store.url';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('BAD_DATABASE_URL', `${where} is not a URL`, 'Use postgres://user:password@host:5432/database.');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ConfigError('BAD_DATABASE_URL', `${where} must be a postgres:// URL, not ${parsed.protocol}//`, 'Use postgres://user:password@host:5432/database, or remove it to keep the SQLite file.');
  }
  return url;
}

/** The URL as it may be shown: the password replaced. */
export function shownDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/**
 * This home's node id in a cluster: made once (host name and a random suffix) and kept in
 * `$SWITCHBOARD_HOME/node-id`, so a restarted gateway recovers the rows it held before.
 */
export function nodeIdOf(homeRoot: string): string {
  const kept = formerNodeIdOf(homeRoot);
  if (kept) return kept;
  const made = `${os.hostname()}-${randomBytes(4).toString('hex')}`;
  writeFileSync(path.join(homeRoot, 'node-id'), `${made}\n`);
  return made;
}

/** The node id this home had in a cluster, if it ever was a node (read, never made). */
export function formerNodeIdOf(homeRoot: string): string | undefined {
  try {
    return readFileSync(path.join(homeRoot, 'node-id'), 'utf8').trim() || undefined;
  } catch {
    return undefined; // never a node
  }
}
