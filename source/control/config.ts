import { ConfigError } from '../config/errors.js';
import type { ConfigFile } from '../config/types.js';
import { isLoopbackHost } from './tcp-guard.js';

export const DEFAULT_CONTROL_HOST = '127.0.0.1';
export const DEFAULT_CONTROL_PORT = 8645;

/** The checked `control` section: TCP is off unless `control.host` or `control.port` is set. */
export interface ResolvedControl {
  tcp?: { host: string; port: number; token?: string };
}

/**
 * `env` is where `control.token_env` is looked up: the process environment, merged by the caller
 * with $SWITCHBOARD_HOME/.env when secrets live there.
 */
export function resolveControl(values: ConfigFile, env: Record<string, string | undefined>): ResolvedControl {
  const control = values.control ?? {};
  let token: string | undefined;
  if (control.token_env !== undefined) {
    token = env[control.token_env];
    if (!token) {
      throw new ConfigError('CONTROL_TOKEN_MISSING', `control.token_env names ${control.token_env}, which is not set or is empty`,
        `Set ${control.token_env} to a long random token (e.g. openssl rand -base64 32) in the environment or $SWITCHBOARD_HOME/.env, or remove control.token_env.`);
    }
  }
  if (control.host === undefined && control.port === undefined) return {};
  const host = control.host ?? DEFAULT_CONTROL_HOST;
  if (!token && !isLoopbackHost(host)) {
    throw new ConfigError('CONTROL_TOKEN_REQUIRED', `control.host is ${host}, which is not a loopback address, and control.token_env is not set`,
      'Set control.token_env to the name of an environment variable that holds a long random token, or set control.host to 127.0.0.1.');
  }
  const port = control.port ?? DEFAULT_CONTROL_PORT;
  return { tcp: token ? { host, port, token } : { host, port } };
}
