import type { Operations } from './index.js';

/**
 * The same Operations over a control channel: every call becomes `call('domain.verb', params)`.
 * Its own module, so a command that reaches a running gateway loads none of the local core.
 */
export function createRemoteOperations(call: (method: string, params: unknown) => Promise<unknown>): Operations {
  return new Proxy({} as Operations, {
    get: (_target, domain) => new Proxy({}, {
      get: (_group, verb) => (params?: unknown) => call(`${String(domain)}.${String(verb)}`, params ?? {}),
    }),
  });
}
