import { escapeControls } from '../infra/control-chars.js';
import type { McpServerConfig } from '../config/types.js';
import { validateDefinition, type ConfigIssue } from '../config/validate.js';

/** Decoded server entries above this are refused (spec 4.3). */
export const MAX_CONFIG_BYTES = 32 * 1024;
/** The longest base64 text that can decode to MAX_CONFIG_BYTES: checked before decoding anything. */
export const MAX_ENCODED_LENGTH = Math.ceil(MAX_CONFIG_BYTES / 3) * 4;

const namePattern = /^[A-Za-z0-9._-]{1,64}$/;
const base64url = /^[A-Za-z0-9_-]+={0,2}$/;
const base64std = /^[A-Za-z0-9+/]+={0,2}$/;

export type InstallLinkError =
  | { kind: 'not_an_install_link'; message: string }
  | { kind: 'invalid_name'; message: string }
  | { kind: 'missing_config'; message: string }
  | { kind: 'payload_too_large'; message: string }
  | { kind: 'bad_encoding'; message: string }
  | { kind: 'not_an_object'; message: string }
  | { kind: 'invalid_shape'; message: string }
  | { kind: 'invalid_url'; message: string }
  | { kind: 'invalid_config'; message: string; issues: ConfigIssue[]; unknownKeys: string[] };

export type InstallLink = { name: string; config: McpServerConfig; transport: 'stdio' | 'http' };

export type InstallLinkResult = { ok: true; value: InstallLink } | { ok: false; error: InstallLinkError };

const fail = (error: InstallLinkError): InstallLinkResult => ({ ok: false, error });

/** Parses `switchboard://mcp/install?name=<NAME>&config=<BASE64URL_JSON>` into a server entry, or says exactly why not. */
export function parseInstallLink(link: string): InstallLinkResult {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return fail({ kind: 'not_an_install_link', message: 'not a URL; expected switchboard://mcp/install?name=...&config=...' });
  }
  if (url.protocol !== 'switchboard:' || url.hostname !== 'mcp' || url.pathname !== '/install') {
    return fail({ kind: 'not_an_install_link', message: `expected switchboard://mcp/install, got ${url.protocol}//${url.hostname}${url.pathname}` });
  }
  const name = url.searchParams.get('name') ?? '';
  if (!namePattern.test(name)) return fail({ kind: 'invalid_name', message: `server name "${name}" must be 1-64 characters of A-Z a-z 0-9 . _ -` });
  // A query string turns "+" into a space; base64 never holds spaces, so put them back.
  const encoded = (url.searchParams.get('config') ?? '').replaceAll(' ', '+');
  if (encoded === '') return fail({ kind: 'missing_config', message: 'the link has no config parameter' });
  if (encoded.length > MAX_ENCODED_LENGTH) return fail({ kind: 'payload_too_large', message: `config is ${encoded.length} characters encoded; the limit is ${MAX_CONFIG_BYTES} bytes decoded` });

  const decoded = decode(encoded);
  if (!decoded.ok) return fail({ kind: 'bad_encoding', message: decoded.reason });
  if (decoded.bytes.length > MAX_CONFIG_BYTES) return fail({ kind: 'payload_too_large', message: `config is ${decoded.bytes.length} bytes; the limit is ${MAX_CONFIG_BYTES}` });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(decoded.bytes);
  } catch {
    return fail({ kind: 'bad_encoding', message: 'config does not decode to UTF-8 text' });
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    return fail({ kind: 'bad_encoding', message: `config is not JSON: ${(error as Error).message}` });
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return fail({ kind: 'not_an_object', message: 'config must be a JSON object (one mcp_servers entry)' });
  return checkEntry(name, config as Record<string, unknown>);
}

function checkEntry(name: string, entry: Record<string, unknown>): InstallLinkResult {
  const hasUrl = entry.url !== undefined;
  const hasCommand = entry.command !== undefined;
  if (hasUrl && hasCommand) return fail({ kind: 'invalid_shape', message: 'config has both url and command; a server is either remote (url) or local (command)' });
  if (!hasUrl && !hasCommand) return fail({ kind: 'invalid_shape', message: 'config needs a url (remote server) or a command (local server)' });
  if (hasCommand && (typeof entry.command !== 'string' || entry.command.trim() === '')) return fail({ kind: 'invalid_shape', message: 'command must be a non-blank string' });
  if (hasUrl) {
    const protocol = typeof entry.url === 'string' && URL.canParse(entry.url) ? new URL(entry.url).protocol : '';
    if (protocol !== 'http:' && protocol !== 'https:') return fail({ kind: 'invalid_url', message: `url must be an http:// or https:// address (got ${JSON.stringify(entry.url)})` });
  }
  const issues = validateDefinition('mcp_server', entry, ['config']);
  if (issues.length > 0) {
    const unknownKeys = issues.filter((issue) => issue.reason.startsWith('unknown key')).map((issue) => issue.path.replace(/^config\./, ''));
    return fail({ kind: 'invalid_config', message: issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; '), issues, unknownKeys });
  }
  return { ok: true, value: { name, config: entry as McpServerConfig, transport: hasCommand ? 'stdio' : 'http' } };
}

function decode(encoded: string): { ok: true; bytes: Buffer } | { ok: false; reason: string } {
  const url = base64url.test(encoded);
  const std = base64std.test(encoded);
  if (!url && !std) return { ok: false, reason: 'config is neither base64url nor standard base64' };
  if ((encoded.replace(/=+$/, '').length % 4) === 1) return { ok: false, reason: 'config has a truncated base64 length' };
  return { ok: true, bytes: Buffer.from(encoded, url ? 'base64url' : 'base64') };
}

/** The link for an existing entry: what `switchboard mcp link <server>` prints (round-trips with the parser). */
export function buildInstallLink(name: string, config: McpServerConfig): string {
  const params = new URLSearchParams({ name, config: Buffer.from(JSON.stringify(config)).toString('base64url') });
  return `switchboard://mcp/install?${params.toString()}`;
}

/** The exact command line a stdio entry would run, for the confirmation's caution. */
export function commandLine(config: McpServerConfig): string | undefined {
  if (typeof config.command !== 'string') return undefined;
  const args = Array.isArray(config.args) ? (config.args as unknown[]).map(String) : [];
  return [config.command, ...args].map(shellQuote).join(' ');
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Text from a link as it may be shown: control characters (C0, C1, DEL; ANSI escape sequences
 * start with one) become visible `\xNN` escapes, so a link cannot recolour, move or hide what the
 * operator reads before confirming.
 */
export function printable(text: string): string {
  return escapeControls(text);
}

/** What the confirmation shows: the name, the entry (env values masked), the env names and the command to run, all printable. */
export function installSummary(link: InstallLink): { name: string; config: string[]; envNames: string[]; command: string | undefined } {
  const env = link.config.env && typeof link.config.env === 'object' ? (link.config.env as Record<string, unknown>) : {};
  const masked = Object.keys(env).length > 0 ? { ...link.config, env: Object.fromEntries(Object.keys(env).map((key) => [key, '********'])) } : link.config;
  const command = commandLine(link.config);
  return {
    name: printable(link.name),
    config: JSON.stringify(masked, undefined, 2).split('\n').map(printable),
    envNames: Object.keys(env).map(printable),
    command: command === undefined ? undefined : printable(command),
  };
}
