import { describe, expect, it } from 'vitest';
import { resolveControl } from '../../source/control/config.js';
import { validateConfig } from '../../source/config/validate.js';

describe('resolveControl', () => {
  it('keeps TCP off unless control.host or control.port is set', () => {
    expect(resolveControl({}, {})).toEqual({});
    expect(resolveControl({ control: {} }, {})).toEqual({});
    expect(resolveControl({ control: { port: 9000 } }, {})).toEqual({ tcp: { host: '127.0.0.1', port: 9000 } });
    expect(resolveControl({ control: { host: '::1' } }, {})).toEqual({ tcp: { host: '::1', port: 8645 } });
  });

  it('reads the token from the variable control.token_env names', () => {
    expect(resolveControl({ control: { host: '0.0.0.0', port: 9000, token_env: 'SB_CONTROL_TOKEN' } }, { SB_CONTROL_TOKEN: 'tok' }))
      .toEqual({ tcp: { host: '0.0.0.0', port: 9000, token: 'tok' } });
  });

  it('throws naming control.token_env when its variable is unset or empty', () => {
    for (const env of [{}, { SB_CONTROL_TOKEN: '' }]) {
      expect(() => resolveControl({ control: { port: 9000, token_env: 'SB_CONTROL_TOKEN' } }, env)).toThrow(
        expect.objectContaining({ code: 'CONTROL_TOKEN_MISSING', message: 'control.token_env names SB_CONTROL_TOKEN, which is not set or is empty' }),
      );
    }
  });

  it('throws naming control.host when it is not loopback and there is no token', () => {
    expect(() => resolveControl({ control: { host: '0.0.0.0' } }, {})).toThrow(
      expect.objectContaining({ code: 'CONTROL_TOKEN_REQUIRED', message: expect.stringContaining('control.host is 0.0.0.0'), hint: expect.stringContaining('control.token_env') }),
    );
  });

  it('is declared in config.schema.json', () => {
    expect(validateConfig({ control: { host: '127.0.0.1', port: 8645, token_env: 'SB_TOKEN' } })).toEqual([]);
    expect(validateConfig({ control: { port: 70000, token_env: 'not a name', extra: true } }).map((issue) => issue.path).sort())
      .toEqual(['control.extra', 'control.port', 'control.token_env']);
  });
});
