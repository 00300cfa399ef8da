import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { mtimeOf } from '../infra/mtime.js';

/** Tokens as stored: `expires_in` is replaced by an absolute `expires_at` (ISO time). */
export interface SavedTokens extends Omit<StoredOAuthTokens, 'expires_in'> {
  expires_at?: string;
}

/** `<server>.json` (or the row's token columns): tokens, the document client id when the document was accepted, cached discovery. */
export interface TokenFile {
  tokens?: SavedTokens;
  /** Set when the client was identified by the client metadata document (no registration stored). */
  documentClient?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  /** The scope a headless step-up (403 insufficient_scope) asked for; the next login requests it too. */
  pendingScope?: string;
}

/**
 * One server's OAuth state: tokens, the DCR registration and the `cimd-off` marker (spec 3.2). Two
 * implementations: the home's files (below) and, in cluster mode, PostgreSQL (`store/pg/mcp-oauth.ts`).
 */
export interface TokenStore {
  /** Where each part lives, for messages (file paths, or the table row): never the content. */
  readonly where: { tokens: string; client: string; marker: string };
  readTokenFile(): Promise<TokenFile>;
  updateTokenFile(change: (current: TokenFile) => TokenFile): Promise<void>;
  readRegistration(): Promise<StoredOAuthClientInformation | undefined>;
  writeRegistration(info: StoredOAuthClientInformation): Promise<void>;
  removeRegistration(): Promise<void>;
  hasRegistration(): Promise<boolean>;
  documentRefused(): Promise<boolean>;
  writeMarker(reason: string): Promise<void>;
  clearMarker(): Promise<void>;
  /** Changes whenever the token file is written (its mtime; the row's version): a login made elsewhere shows here. */
  version(): Promise<number>;
  /**
   * Runs `work` as the only refresh of this server's tokens: in PostgreSQL under the row's lock
   * (`SELECT ... FOR UPDATE`), so nodes refreshing together take turns and each sees what the one
   * before it saved. `save` writes within the same lock. The files take turns within this store only
   * (one gateway per home).
   */
  exclusive<T>(work: (current: TokenFile, save: (next: TokenFile) => Promise<void>) => Promise<T>): Promise<T>;
}

/** Where every server's OAuth state lives: the home's `mcp-tokens` folder, or the cluster's database. */
export interface TokenStores {
  kind: 'files' | 'postgres';
  of(server: string): TokenStore;
}

/** `$SWITCHBOARD_HOME/mcp-tokens/` for every server. */
export function fileTokenStores(dir: string): TokenStores {
  return { kind: 'files', of: (server) => createFileTokenStore(dir, server) };
}

/**
 * `$SWITCHBOARD_HOME/mcp-tokens/`: `<server>.json`, `<server>.client.json` (a DCR registration) and the
 * `<server>.cimd-off` marker (spec 3.2). Folder 0700, files 0600, each write a temp file renamed into place.
 */
export function createFileTokenStore(dir: string, server: string): TokenStore {
  const base = path.join(dir, tokenFileStem(server));
  const files = { tokens: `${base}.json`, client: `${base}.client.json`, marker: `${base}.cimd-off` };

  function ensureDir(): void {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
  function write(file: string, text: string): void {
    ensureDir();
    const temp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(temp, text, { mode: 0o600 });
      fs.renameSync(temp, file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      throw error;
    }
  }
  function readJson<T>(file: string): T | undefined {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // A damaged file means "log in again", not a crash; the message never quotes the content.
      throw new Error(`server ${server}: ${file} is not valid JSON; delete it and run: switchboard mcp login ${server}`);
    }
  }

  const readTokenFile = (): TokenFile => readJson<TokenFile>(files.tokens) ?? {};
  const writeTokenFile = (next: TokenFile): void => write(files.tokens, `${JSON.stringify(next, undefined, 2)}\n`);
  /** Refreshes of this connection take turns (two requests answered 401 together refresh once). */
  let turn: Promise<unknown> = Promise.resolve();

  return {
    where: files,
    readTokenFile: async () => readTokenFile(),
    updateTokenFile: async (change) => writeTokenFile(change(readTokenFile())),
    readRegistration: async () => readJson<StoredOAuthClientInformation>(files.client),
    writeRegistration: async (info) => write(files.client, `${JSON.stringify(info, undefined, 2)}\n`),
    removeRegistration: async () => fs.rmSync(files.client, { force: true }),
    hasRegistration: async () => fs.existsSync(files.client),
    documentRefused: async () => fs.existsSync(files.marker),
    writeMarker: async (reason) => write(files.marker, `${reason}\n`),
    clearMarker: async () => fs.rmSync(files.marker, { force: true }),
    version: async () => mtimeOf(files.tokens),
    exclusive(work) {
      const run = turn.then(() => work(readTokenFile(), async (next) => writeTokenFile(next)));
      turn = run.catch(() => undefined);
      return run;
    },
  };
}

/** Converts the token endpoint's relative `expires_in` into the absolute time kept in the store. */
export function toSaved(tokens: StoredOAuthTokens, nowMs: number): SavedTokens {
  const { expires_in, ...rest } = tokens;
  return { ...rest, ...(typeof expires_in === 'number' ? { expires_at: new Date(nowMs + expires_in * 1000).toISOString() } : {}) };
}

/** The SDK's view: `expires_in` counted from now (0 once expired). */
export function fromSaved(saved: SavedTokens, nowMs: number): StoredOAuthTokens {
  const { expires_at, ...rest } = saved;
  if (!expires_at) return rest;
  return { ...rest, expires_in: Math.max(0, Math.floor((Date.parse(expires_at) - nowMs) / 1000)) };
}

/**
 * The file name a server's tokens live under: one name per server (reversible: every character but
 * letters, digits, `_`, `-` and inner dots is %-encoded), and never a path out of the tokens folder
 * (`..` becomes `%2E.`), whatever the name.
 */
export function tokenFileStem(server: string): string {
  const encoded = server.replace(/[^A-Za-z0-9._-]/g, (char) => [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  return encoded.replace(/^\./, '%2E');
}

/** `$SWITCHBOARD_HOME/mcp-tokens`: one folder (0700) for every server's OAuth files. */
export function tokensDirOf(homeRoot: string): string {
  return path.join(homeRoot, 'mcp-tokens');
}
