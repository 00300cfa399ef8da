import { getAt, setAt } from '../config/edit.js';
import { ConfigError } from '../config/errors.js';
import { formatKeyPath, parseKeyPath } from '../config/key-path.js';
import { maskSecrets } from '../config/mask.js';
import type { ConfigFile } from '../config/types.js';
import { schemaKey } from '../config/schema.js';
import { validateConfig, type ConfigIssue } from '../config/validate.js';
import type { ConfigApplied, ConfigChangeResult } from '../gateway/config-commands.js';
import { checkConfig } from '../gateway/check-config.js';
import { readConfigFile } from '../infra/config-file.js';
import type { OperationsCore } from './core.js';
import { OperatorError } from './errors.js';
import { optionalText, text, type Implementation, type Params } from './params.js';

export interface ConfigChangeView extends ConfigApplied {
  key: string;
  /** True when a running gateway applied the change (what `restartNeeded` lists waits for its restart). */
  live: boolean;
}

export interface ConfigOperations {
  path(params: Record<string, never>): Promise<{ file: string }>;
  /** config.json as written, secrets masked. */
  show(params: Record<string, never>): Promise<ConfigFile>;
  /** One value as written (secrets shown: the caller asked for that key). */
  get(params: { key: string }): Promise<{ key: string; value: unknown }>;
  /** Sets one key (`value` undefined removes it); refused when the result fails checkConfig. */
  set(params: { key: string; value?: unknown; by?: string }): Promise<ConfigChangeView>;
  /** The one check (checkConfig) of config.json as it is on disk. */
  validate(params: Record<string, never>): Promise<{ file: string; issues: ConfigIssue[] }>;
  /** Rereads config.json (after $EDITOR) and applies what changed; an invalid file changes nothing. */
  reload(params: { by?: string }): Promise<ConfigChangeView>;
}

/** A refused change: every problem listed, nothing written. */
export function refusedChange(result: Extract<ConfigChangeResult, { ok: false }>): OperatorError {
  // No issues: the file itself could not be read, and the reason says why.
  const hint = result.issues.length > 0 ? 'Fix the keys listed (the schema is config.schema.json), then try again.' : 'Fix the file by hand (it must be a JSON object).';
  return new OperatorError('invalid', result.reason, hint, result.issues.map((issue) => `${issue.path}: ${issue.reason}`));
}

export function keySegments(key: string, method: string): string[] {
  const segments = parseKeyPath(key);
  if (!segments) throw new OperatorError('invalid', `${method}: "${key}" is not a config key path`, 'Write keys like platforms.webhook.extra.port or mcp_servers["my.server"].url.');
  return segments;
}

/**
 * `config get` of a key config.json does not hold: a key the schema does not know is named as
 * unknown, with the schema's suggestion (as `config set` does); a known one says its default
 * applies, in the words of its description.
 */
function unsetKeyError(file: ConfigFile, segments: string[]): OperatorError {
  const key = formatKeyPath(segments);
  const unknown = validateConfig(setAt(file, segments, null)).find((issue) => issue.path === key && issue.reason.startsWith('unknown key'));
  if (unknown) return new OperatorError('not_found', `${key}: ${unknown.reason}`, 'The configuration reference in the README lists every key.');
  const { description, entries } = schemaKey(segments);
  const missingEntry = entries.find((index) => getAt(file, segments.slice(0, index + 1)) === undefined);
  if (missingEntry !== undefined) return new OperatorError('not_found', `${formatKeyPath(segments.slice(0, missingEntry + 1))} is not in config.json`, 'config show lists what it holds.');
  return new OperatorError('not_found', `${key} is not set in config.json, so its default applies`, description ?? 'See the configuration reference in the README for defaults.');
}

export function createConfigOperations(core: OperationsCore): ConfigOperations {
  const file = () => core.home.configFile;
  const readFile = (): ConfigFile => {
    try {
      return (readConfigFile(file()) ?? {}) as ConfigFile;
    } catch (error) {
      // Not JSON, not an object: its message names the file already.
      if (error instanceof ConfigError) throw new OperatorError('invalid', error.message, error.hint);
      throw new OperatorError('invalid', `${file()} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'Check that this user may read it.');
    }
  };
  const view = (key: string, result: ConfigChangeResult): ConfigChangeView => {
    if (!result.ok) throw refusedChange(result);
    return { key, ...result.value, live: core.where === 'gateway' };
  };

  return {
    async path() {
      return { file: file() };
    },
    async show() {
      return maskSecrets(readFile());
    },
    async get(params: Params) {
      const key = text(params, 'key', 'config.get');
      const segments = keySegments(key, 'config.get');
      const file = readFile();
      const value = getAt(file, segments);
      if (value === undefined) throw unsetKeyError(file, segments);
      return { key, value };
    },
    async set(params: Params) {
      const key = text(params, 'key', 'config.set');
      const segments = keySegments(key, 'config.set');
      const value = params.value;
      if (value === undefined && getAt(readFile(), segments) === undefined) throw new OperatorError('not_found', `${key} is not set in config.json`, 'Nothing to remove.');
      return view(formatKeyPath(segments), await core.config().set(segments, value, optionalText(params, 'by', 'config.set') ?? 'operator'));
    },
    async validate() {
      const checked = checkConfig(readFile(), core.home);
      return { file: file(), issues: checked.ok ? [] : checked.issues };
    },
    async reload(params: Params) {
      const by = optionalText(params, 'by', 'config.reload') === 'file' ? 'file' : 'console';
      return view('(file)', await core.config().reload(by));
    },
  } satisfies Implementation<ConfigOperations> as unknown as ConfigOperations;
}
