import fs from 'node:fs';
import os from 'node:os';
import { readConfigFile, writeConfigFile } from '../infra/config-file.js';
import { defaultConfig, DEFAULT_WEBHOOK_PORT, systemTimeZone } from './default-config.js';
import { ConfigError } from './errors.js';
import type { HomeLayout } from './home.js';
import { interpolateDeep, type InterpolationScope } from './interpolate.js';
import { readSecretScope } from './secret-scope.js';
import type { ConfigFile } from './types.js';
import { validateConfig, type ConfigIssue } from './validate.js';

export interface LoadedConfig {
  file: ConfigFile;
  /** True when this call wrote the first-run default. */
  created: boolean;
}

/** Reads config.json, writing the embedded default first on an empty home; throws on any problem. */
export function loadOrCreateConfig(home: HomeLayout): LoadedConfig {
  fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
  let raw = readConfigFile(home.configFile);
  const created = raw === undefined;
  if (raw === undefined) {
    raw = defaultConfig() as Record<string, unknown>;
    writeConfigFile(home.configFile, raw);
  }
  assertValid(raw, home.configFile);
  return { file: raw as ConfigFile, created };
}

export function assertValid(raw: unknown, configFile: string): void {
  const issues = validateConfig(raw);
  if (issues.length > 0) throw invalidConfigError(issues, configFile);
}

/** `proposed`: the problems belong to a change that was refused, not to the file on disk. */
export function invalidConfigError(issues: ConfigIssue[], configFile: string, proposed = false): ConfigError {
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new ConfigError(
    'CONFIG_INVALID',
    proposed ? `Not written: the change would leave ${configFile} with ${count}` : `${configFile} has ${count}`,
    'Fix the keys above (the schema is config.schema.json), then run: switchboard config validate',
    issues.map((issue) => `${issue.path}: ${issue.reason}`),
  );
}

export type LogLevel = NonNullable<NonNullable<ConfigFile['logging']>['level']>;

export interface ResolvedWebhookListener {
  enabled: boolean;
  host: string;
  port: number;
  routeNames: string[];
}

/** The checked config with defaults applied and `${...}` references resolved. */
export interface ResolvedConfig {
  home: HomeLayout;
  /** Interpolated copy of config.json for the resolve*() functions of each domain. */
  values: ConfigFile;
  timezone: string;
  logLevel: LogLevel;
  webhook: ResolvedWebhookListener;
}

export function resolveConfig(file: ConfigFile, home: HomeLayout, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const values = interpolateDeep(file, interpolationScope(home, file, env), isTemplate);
  const extra = values.platforms?.webhook?.extra ?? {};
  return {
    home,
    values,
    timezone: values.timezone ?? systemTimeZone(),
    logLevel: values.logging?.level ?? 'info',
    webhook: {
      enabled: values.platforms?.webhook?.enabled === true,
      host: extra.host ?? '0.0.0.0',
      port: extra.port ?? DEFAULT_WEBHOOK_PORT,
      routeNames: Object.keys(extra.routes ?? {}),
    },
  };
}

export function interpolationScope(home: HomeLayout, file: ConfigFile, env: NodeJS.ProcessEnv): InterpolationScope {
  return {
    secrets: readSecretScope(home.envFile),
    env,
    userHome: os.homedir(),
    workspaceFolder: file.agent?.workdir ?? process.cwd(),
  };
}

/** Route prompts are payload templates: `${...}` there is text, never a secret lookup. */
function isTemplate(keyPath: string[]): boolean {
  return keyPath.length === 6 && keyPath[0] === 'platforms' && keyPath[3] === 'routes' && keyPath[5] === 'prompt';
}
