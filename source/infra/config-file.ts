import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Conf from 'conf';
import { ConfigError } from '../config/errors.js';
import { withoutAddedSignalListeners } from './keep-signals.js';

/** config.json holds secrets: owner-only. */
const CONFIG_FILE_MODE = 0o600;

/**
 * conf (with Ajv, semver and atomically: about 140 ms) is loaded by the first write only: every
 * command reads config.json, few write it. Node 22 loads this ES module synchronously with require().
 */
function open(configFile: string): Conf<Record<string, unknown>> {
  const { default: ConfClass } = withoutAddedSignalListeners(() => createRequire(import.meta.url)('conf') as { default: typeof Conf });
  return new ConfClass<Record<string, unknown>>({
    cwd: path.dirname(configFile),
    configName: path.basename(configFile, '.json'),
    configFileMode: CONFIG_FILE_MODE,
    clearInvalidConfig: false,
    serialize: (value) => `${JSON.stringify(value, undefined, 2)}\n`,
    deserialize: (text) => parseConfigText(text, configFile),
  });
}

/** The file's contents, or undefined when it does not exist yet (read as conf reads it, without loading conf). */
export function readConfigFile(configFile: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(configFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return Object.assign(Object.create(null) as Record<string, unknown>, parseConfigText(text, configFile)); // as conf hands it out
}

/** Atomic whole-file write through conf (it writes a temp file and renames). */
export function writeConfigFile(configFile: string, value: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(configFile), { recursive: true, mode: 0o700 });
  open(configFile).store = value;
  fs.chmodSync(configFile, CONFIG_FILE_MODE);
}

function parseConfigText(text: string, configFile: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse may quote the text around the error, which can be a secret: keep only its own words.
    const reason = (error as Error).message.replace(/,\s*(?:\.\.\.)?"[\s\S]*"(?:\.\.\.)?\s*is not valid JSON$/, '');
    throw new ConfigError('CONFIG_NOT_JSON', `${configFile} is not valid JSON: ${reason}`, 'Fix the syntax, or move the file away to get a fresh default on the next start.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError('CONFIG_NOT_OBJECT', `${configFile} must contain a JSON object`, 'Fix the file, or move it away to get a fresh default on the next start.');
  }
  return value as Record<string, unknown>;
}
