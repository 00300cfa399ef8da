import type { Logger } from 'pino';
import { setAt } from '../config/edit.js';
import { ConfigError } from '../config/errors.js';
import { appliedLive, changedKeys, shapesRoutes } from '../config/changed-keys.js';
import { formatKeyPath } from '../config/key-path.js';
import type { HomeLayout } from '../config/home.js';
import type { ResolvedConfig } from '../config/load.js';
import type { ConfigFile } from '../config/types.js';
import type { ConfigIssue } from '../config/validate.js';
import { readConfigFile, writeConfigFile } from '../infra/config-file.js';
import type { McpReloadResult } from '../mcp/manager.js';
import type { AuditBackend } from '../store/async-domains.js';
import { resolveWebhooks, type ResolvedRoute } from '../webhooks/config.js';
import { checkConfig } from './check-config.js';
import type { GatewayEvents } from './events.js';

export interface ConfigApplied {
  /** Entry-level key paths that differ from the config in effect: `mcp_servers.fx`, `platforms.webhook.extra.routes.gh`, `model`. */
  changed: string[];
  /** Of those, what needs a gateway restart (listener settings, model, platforms, ...). */
  restartNeeded: string[];
  /** Set when MCP servers changed: what the reload did. */
  mcp: McpReloadResult | null;
  /** Set when static routes changed: the routes served from now on. */
  routes: { added: string[]; changed: string[]; removed: string[] } | null;
}

export type ConfigChangeResult = { ok: true; value: ConfigApplied } | { ok: false; reason: string; issues: ConfigIssue[] };

/** Console commands over config.json: read it, change one key, reread it after $EDITOR; each applies what it can live. */
export interface ConfigCommands {
  /** config.json as written (`${VAR}` references unresolved): what forms show and edit. */
  read(): ConfigFile;
  /** Sets one key (undefined removes it) when the whole result is valid, writes the file, applies the change. */
  set(segments: readonly string[], value: unknown, by?: string): Promise<ConfigChangeResult>;
  /**
   * Rereads config.json: when valid, applies what changed; when not, the config in effect stays and the
   * file is left as it is. `by` is recorded in the audit trail: `console` (E), `file` (the config watch).
   */
  reload(by?: 'console' | 'file'): Promise<ConfigChangeResult>;
  /** The checked config in effect. */
  current(): ResolvedConfig;
  /**
   * The console's `E`: while `work` runs (the editor is open), the config watch leaves the file alone,
   * so a half-done save is not applied and the reload afterwards reports what the edit changed.
   */
  whileEditing<T>(work: () => Promise<T>): Promise<T>;
  /** True while the console's editor is open. */
  editing(): boolean;
}

export interface ConfigCommandDeps {
  home: HomeLayout;
  /** The config in effect; null in a CLI process whose config.json does not pass the check yet (`config set` fixes it). */
  initial: ResolvedConfig | null;
  logger: Logger;
  audit: Pick<AuditBackend, 'record'>;
  events: Pick<GatewayEvents, 'emit'>;
  mcp: { reload(): Promise<McpReloadResult> };
  /** The running webhook platform, or null when it is disabled (routes then need a restart). */
  webhooks: { replaceRoutes(next: Map<string, ResolvedRoute>): NonNullable<ConfigApplied['routes']> } | null;
  env?: NodeJS.ProcessEnv;
  /** False while no gateway runs (the CLI's own process): changes are checked and written, applied at the next start. */
  live: () => boolean;
}

export function createConfigCommands(deps: ConfigCommandDeps): ConfigCommands {
  const { home } = deps;
  let current = deps.initial;
  let editors = 0;
  let queue: Promise<unknown> = Promise.resolve();
  /** One change at a time: a form save and an editor reload never interleave. */
  const serially = (work: () => Promise<ConfigChangeResult>): Promise<ConfigChangeResult> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };

  /** config.json as written, or why it cannot be: a problem of the whole file, whose message names it. */
  const readRaw = (): { ok: true; file: ConfigFile } | { ok: false; reason: string } => {
    try {
      const file = readConfigFile(home.configFile);
      return file ? { ok: true, file: file as ConfigFile } : { ok: false, reason: `${home.configFile} does not exist` };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  };

  /** Everything the gateway checks at start (checkConfig), so a change is never written that the next start would refuse. */
  const check = (file: ConfigFile): { ok: true; resolved: ResolvedConfig; routes: Map<string, ResolvedRoute> | null } | { ok: false; issues: ConfigIssue[] } => {
    const checked = checkConfig(file, home, deps.env);
    if (!checked.ok) return checked;
    if (!deps.webhooks || !deps.live()) return { ok: true, resolved: checked.resolved, routes: null };
    // The routes as the running listener would serve them: its host was fixed at start, whatever the file says now.
    try {
      return { ok: true, resolved: checked.resolved, routes: resolveWebhooks(checked.resolved, deps.initial?.webhook.host).routes };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { ok: false, issues: [{ path: 'platforms.webhook.extra.routes', reason: [error.message, error.hint].filter(Boolean).join('. ') }] };
    }
  };

  const apply = async (resolved: ResolvedConfig, routes: Map<string, ResolvedRoute> | null, by: string): Promise<ConfigApplied> => {
    const changed = changedKeys(current?.values ?? {}, resolved.values);
    const mcpChanged = changed.some((key) => key.startsWith('mcp_servers'));
    const routesChanged = changed.some(shapesRoutes);
    const live = (key: string) => deps.live() && appliedLive(key, routes !== null);
    current = resolved;
    const applied: ConfigApplied = {
      changed,
      restartNeeded: changed.filter((key) => !live(key)),
      mcp: mcpChanged && deps.live() ? await deps.mcp.reload().catch((error: unknown) => ({ added: [], removed: [], changed: [], unchanged: [], warnings: [`MCP reload failed: ${(error as Error).message}`] })) : null,
      routes: routesChanged && routes && deps.webhooks ? deps.webhooks.replaceRoutes(routes) : null,
    };
    if (changed.length > 0) {
      void deps.audit.record(by, 'config.changed', changed.join(', ')).catch(() => {}); // kept by the store; a lost line never fails a change
      // A command with no gateway running (the CLI's own process) has nothing to restart.
      const when = !deps.live() ? ' while no gateway runs: applied when one starts' : applied.restartNeeded.length > 0 ? `; needs a restart: ${applied.restartNeeded.join(', ')}` : '';
      deps.logger.info(`config.json changed (${changed.join(', ')})${when}`);
      deps.events.emit('config.changed', { changed, restartNeeded: applied.restartNeeded });
    }
    return applied;
  };

  /** `reason` says what was refused; `issues` lists every problem (the console shows them, the CLI prints them). */
  const refused = (issues: ConfigIssue[], what: string): ConfigChangeResult => ({ ok: false, issues, reason: what });

  /** A change that leaves config.json invalid: the key set is blamed for the problems it brings, not for those the file had. */
  const refusedSet = (key: string, issues: ConfigIssue[], before: ConfigFile): ConfigChangeResult => {
    const was = check(before);
    const old = was.ok ? [] : was.issues;
    const brought = issues.filter((issue) => !old.some((known) => known.path === issue.path && known.reason === issue.reason));
    if (brought.length === 0) return refused(issues, 'Not written: config.json is already invalid (fix it first, or run switchboard config validate)');
    return refused(brought, `Not written: ${key} would make config.json invalid${old.length > 0 ? ' (and it is already invalid: switchboard config validate lists every problem)' : ''}`);
  };

  return {
    read() {
      const raw = readRaw();
      if (!raw.ok) throw new ConfigError('CONFIG_UNREADABLE', raw.reason, 'Fix the file (E in the console opens it), or restart to get a fresh default.');
      return raw.file;
    },
    set: (segments, value, by = 'console') => serially(async () => {
      const raw = readRaw();
      if (!raw.ok) return refused([], `Not written: ${raw.reason}`);
      const next = setAt(raw.file, segments, value);
      const checked = check(next);
      if (!checked.ok) return refusedSet(formatKeyPath(segments), checked.issues, raw.file);
      writeConfigFile(home.configFile, next as Record<string, unknown>);
      return { ok: true, value: await apply(checked.resolved, checked.routes, by) };
    }),
    reload: (by = 'console') => serially(async () => {
      const raw = readRaw();
      if (!raw.ok) return refused([], `${raw.reason}; the previous config stays in effect`);
      const checked = check(raw.file);
      if (!checked.ok) return refused(checked.issues, 'config.json is invalid; the previous config stays in effect');
      return { ok: true, value: await apply(checked.resolved, checked.routes, by) };
    }),
    current: () => {
      if (!current) throw new ConfigError('CONFIG_INVALID', `${home.configFile} does not pass the check`, 'Run: switchboard config validate');
      return current;
    },
    async whileEditing(work) {
      editors += 1;
      try {
        return await work();
      } finally {
        editors -= 1;
      }
    },
    editing: () => editors > 0,
  };
}
