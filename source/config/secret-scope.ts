import fs from 'node:fs';
import { lazyUtil } from '../infra/lazy-builtins.js';
import { ConfigError } from './errors.js';

/** Reads $SWITCHBOARD_HOME/.env (dotenv syntax); a missing file is an empty scope. */
export function readSecretScope(envFile: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(envFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError('SECRETS_UNREADABLE', `Cannot read ${envFile}: ${(error as Error).message}`, 'Check the file permissions.');
  }
  return lazyUtil().parseEnv(text) as Record<string, string>;
}
