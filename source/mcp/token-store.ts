import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/** Tokens as written to `<server>.json`: `expires_in` is replaced by an absolute `expires_at` (ISO time). */
export interface SavedTokens extends Omit<StoredOAuthTokens, 'expires_in'> {
  expires_at?: string;
}

/** `<server>.json`: tokens, the document client id when the document was accepted, cached discovery. */
export interface TokenFile {
  tokens?: SavedTokens;
  /** Set when the client was identified by the client metadata document (no registration on disk). */
  documentClient?: StoredOAuthClientInformation;
  discovery?: OAuthDiscoveryState;
  /** The scope a headless step-up (403 insufficient_scope) asked for; the next login requests it too. */
  pendingScope?: string;
}

/**
 * `$SWITCHBOARD_HOME/mcp-tokens/`: `<server>.json`, `<server>.client.json` (a DCR registration) and the
 * `<server>.cimd-off` marker (spec 3.2). Folder 0700, files 0600, each write a temp file renamed into place.
 */
export function createTokenStore(dir: string, server: string) {
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

  return {
    files,
    readTokenFile,
    writeTokenFile,
    updateTokenFile: (change: (current: TokenFile) => TokenFile): void => writeTokenFile(change(readTokenFile())),
    readRegistration: () => readJson<StoredOAuthClientInformation>(files.client),
    writeRegistration(info: StoredOAuthClientInformation): void {
      write(files.client, `${JSON.stringify(info, undefined, 2)}\n`);
    },
    removeRegistration: () => fs.rmSync(files.client, { force: true }),
    hasRegistration: () => fs.existsSync(files.client),
    documentRefused: () => fs.existsSync(files.marker),
    writeMarker(reason: string): void {
      write(files.marker, `${reason}\n`);
    },
    clearMarker: () => fs.rmSync(files.marker, { force: true }),
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;

/** Converts the token endpoint's relative `expires_in` into the absolute time kept on disk. */
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

/** `$SWITCHBOARD_HOME/mcp-tokens`: one folder (0700) for every server's OAuth files. */
/**
 * The file name a server's tokens live under: one name per server (reversible: every character but
 * letters, digits, `_`, `-` and inner dots is %-encoded), and never a path out of the tokens folder
 * (`..` becomes `%2E.`), whatever the name.
 */
export function tokenFileStem(server: string): string {
  const encoded = server.replace(/[^A-Za-z0-9._-]/g, (char) => [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
  return encoded.replace(/^\./, '%2E');
}

export function tokensDirOf(homeRoot: string): string {
  return path.join(homeRoot, 'mcp-tokens');
}
