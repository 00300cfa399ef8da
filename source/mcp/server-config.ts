import type { ConfigFile, McpServerConfig } from '../config/types.js';
import { expandTilde } from '../config/home.js';
import { checkClientMetadataUrl, resolveOAuth, type ResolvedOAuth } from './oauth-config.js';

export type McpProtocol = 'auto' | 'stateless' | 'legacy';
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

export interface McpToolPolicy {
  /** Set: only these (exact names or fnmatch globs over the original names); wins over exclude. */
  include?: string[];
  exclude?: string[];
  resources: boolean;
  prompts: boolean;
}

export interface McpClientCert {
  certFile: string;
  keyFile?: string;
  /** Which config key named the key file, for error messages. */
  keyKey: 'client_key' | 'client_cert';
  passphrase?: string;
}

/** One `mcp_servers.<name>` entry with defaults applied (spec 2.1). */
export interface ResolvedMcpServer {
  name: string;
  transport: McpTransportKind;
  enabled: boolean;
  command?: string;
  args: string[];
  env: Record<string, string>;
  url?: string;
  headers: Record<string, string>;
  /** true = system CAs, false = no verification, string = CA bundle path (tilde expanded). */
  sslVerify: boolean | string;
  clientCert?: McpClientCert;
  timeoutMs: number;
  connectTimeoutMs: number;
  protocol: McpProtocol;
  parallelSafe: boolean;
  skipPreflight: boolean;
  keepaliveMs: number;
  /** stdio only; 0 disables. */
  idleTimeoutMs: number;
  maxLifetimeMs: number;
  tools: McpToolPolicy;
  auth?: 'oauth';
  /** The `oauth` mapping (spec 2.3), set when `auth: oauth`. */
  oauth?: ResolvedOAuth;
  trust: 'full' | 'untrusted';
  elicitation: { enabled: boolean; timeoutMs: number };
  sampling: { enabled: boolean; model?: string; maxTokens?: number; maxRequestsPerMinute?: number };
  /** Stable serialization of the entry, to tell changed entries apart on reload. */
  fingerprint: string;
}

export interface ResolvedMcpServers {
  servers: ResolvedMcpServer[];
  /** Problems that did not stop resolution, each naming the server and key. */
  warnings: string[];
}

export const MCP_DEFAULTS = {
  timeoutSeconds: 300,
  connectTimeoutSeconds: 60,
  keepaliveSeconds: 180,
  keepaliveMinimumSeconds: 5,
  elicitationTimeoutSeconds: 300,
} as const;

const PROTOCOLS: readonly McpProtocol[] = ['auto', 'stateless', 'legacy'];

/** Reads `mcp_servers` from the interpolated config (values already have `${VAR}` resolved). */
export function resolveMcpServers(values: ConfigFile, homeDir?: string): ResolvedMcpServers {
  const warnings: string[] = [];
  const servers: ResolvedMcpServer[] = [];
  for (const [name, entry] of Object.entries(values.mcp_servers ?? {})) {
    const resolved = resolveMcpServer(name, entry, warnings, homeDir);
    if (resolved) servers.push(resolved);
  }
  return { servers, warnings };
}

export function resolveMcpServer(name: string, entry: McpServerConfig, warnings: string[], homeDir?: string): ResolvedMcpServer | undefined {
  const e = entry as Record<string, unknown>;
  const command = str(e.command);
  const url = str(e.url);
  if (!command && !url) {
    warnings.push(`server ${name}: needs "command" (stdio) or "url" (HTTP); skipped`);
    return undefined;
  }
  if (command && url) warnings.push(`server ${name}: has both "command" and "url"; using command (stdio)`);
  const isStdio = Boolean(command);
  const transport: McpTransportKind = isStdio ? 'stdio' : str(e.transport)?.toLowerCase() === 'sse' ? 'sse' : 'streamable-http';

  let protocol: McpProtocol = 'auto';
  const rawProtocol = str(e.protocol);
  if (rawProtocol !== undefined) {
    if ((PROTOCOLS as readonly string[]).includes(rawProtocol)) protocol = rawProtocol as McpProtocol;
    else warnings.push(`server ${name}: protocol "${rawProtocol}" is not one of auto, stateless, legacy; using auto`);
  }
  let trust: 'full' | 'untrusted' = 'full';
  const rawTrust = str(e.trust);
  if (rawTrust !== undefined && rawTrust !== 'full') {
    trust = 'untrusted';
    if (rawTrust !== 'untrusted') warnings.push(`server ${name}: trust "${rawTrust}" is not "full" or "untrusted"; treated as untrusted`);
  }
  const lifecycle = (e.lifecycle ?? {}) as Record<string, unknown>;
  const tools = (e.tools ?? {}) as Record<string, unknown>;
  const elicitation = (e.elicitation ?? {}) as Record<string, unknown>;
  const sampling = (e.sampling ?? {}) as Record<string, unknown>;
  const expand = (p: string) => expandTilde(p, homeDir);

  const keepaliveSeconds = Math.max(num(e.keepalive_interval) ?? MCP_DEFAULTS.keepaliveSeconds, MCP_DEFAULTS.keepaliveMinimumSeconds);
  const idle = num(e.idle_timeout_seconds) ?? num(lifecycle.idle_timeout_seconds) ?? 0;
  const maxLife = num(e.max_lifetime_seconds) ?? num(lifecycle.max_lifetime_seconds) ?? 0;
  if (!isStdio && (idle > 0 || maxLife > 0)) warnings.push(`server ${name}: idle_timeout_seconds and max_lifetime_seconds apply to stdio servers only; ignored`);
  if (isStdio && e.auth !== undefined) warnings.push(`server ${name}: auth applies to HTTP servers only; ignored`);
  const oauth = !isStdio && e.auth === 'oauth' ? resolveOAuth(e.oauth) : undefined;
  if (oauth?.clientMetadataUrl) {
    const checked = checkClientMetadataUrl(oauth.clientMetadataUrl);
    if (!checked.ok) {
      warnings.push(`server ${name}: oauth.client_metadata_url ${checked.reason}; not used (dynamic client registration instead)`);
      oauth.clientMetadataUrl = undefined;
    }
  }

  return {
    name,
    transport,
    enabled: e.enabled !== false,
    command,
    args: Array.isArray(e.args) ? e.args.map(String) : [],
    env: stringMap(e.env),
    url: isStdio ? undefined : url,
    headers: stringMap(e.headers),
    sslVerify: typeof e.ssl_verify === 'string' ? expand(e.ssl_verify) : e.ssl_verify !== false,
    clientCert: clientCert(e.client_cert, str(e.client_key), expand),
    timeoutMs: (num(e.timeout) ?? MCP_DEFAULTS.timeoutSeconds) * 1000,
    connectTimeoutMs: (num(e.connect_timeout) ?? MCP_DEFAULTS.connectTimeoutSeconds) * 1000,
    protocol,
    parallelSafe: e.supports_parallel_tool_calls === true,
    skipPreflight: e.skip_preflight === true,
    keepaliveMs: keepaliveSeconds * 1000,
    idleTimeoutMs: isStdio ? idle * 1000 : 0,
    maxLifetimeMs: isStdio ? maxLife * 1000 : 0,
    tools: {
      include: tools.include === undefined ? undefined : list(tools.include),
      exclude: tools.exclude === undefined ? undefined : list(tools.exclude),
      resources: boolLike(tools.resources, true),
      prompts: boolLike(tools.prompts, true),
    },
    auth: oauth ? 'oauth' : undefined,
    oauth,
    trust,
    elicitation: {
      enabled: elicitation.enabled !== false,
      timeoutMs: (num(elicitation.timeout) ?? MCP_DEFAULTS.elicitationTimeoutSeconds) * 1000,
    },
    sampling: {
      enabled: sampling.enabled === true,
      model: str(sampling.model),
      maxTokens: num(sampling.max_tokens),
      maxRequestsPerMinute: num(sampling.max_requests_per_minute),
    },
    fingerprint: stableStringify(entry),
  };
}

function clientCert(value: unknown, keyFile: string | undefined, expand: (p: string) => string): McpClientCert | undefined {
  if (typeof value === 'string' && value !== '') return { certFile: expand(value), keyFile: keyFile ? expand(keyFile) : undefined, keyKey: 'client_key' };
  if (Array.isArray(value) && value.length >= 2) {
    return { certFile: expand(String(value[0])), keyFile: expand(String(value[1])), keyKey: 'client_cert', passphrase: value[2] === undefined ? undefined : String(value[2]) };
  }
  return undefined;
}

/** `tools.resources` / `tools.prompts` accept booleans, 0/1 and yes/no/on/off strings. */
export function boolLike(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  const text = String(value).trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(text)) return true;
  if (['false', 'no', 'off', '0'].includes(text)) return false;
  return fallback;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [];
}

function stringMap(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
