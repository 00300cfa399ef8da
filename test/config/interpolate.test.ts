import { describe, expect, it } from 'vitest';
import { interpolate, interpolateDeep, type InterpolationScope } from '../../source/config/interpolate.js';

const scope: InterpolationScope = {
  secrets: { API_KEY: 'from-dotenv', SHARED: 'dotenv-wins' },
  env: { API_KEY: 'from-env', SHARED: 'env-loses', ONLY_ENV: 'env-value', lower: 'lower-value', EMPTY: '' },
  userHome: '/home/op',
  workspaceFolder: '/srv/work/project-x',
  pathSeparator: '/',
};

describe('interpolate (spec 2.4)', () => {
  it.each([
    ['${API_KEY}', 'from-dotenv', 'secret scope before the environment'],
    ['${env:API_KEY}', 'from-dotenv', 'env: prefix is the same lookup'],
    ['${ONLY_ENV}', 'env-value', 'falls back to the process environment'],
    ['${env:ONLY_ENV}', 'env-value', 'env: prefix falls back too'],
    ['${SHARED}', 'dotenv-wins', '.env wins over the environment'],
    ['${MISSING}', '${MISSING}', 'unset keeps the literal placeholder'],
    ['${env:MISSING}', '${env:MISSING}', 'unset env: keeps its placeholder'],
    ['${userHome}', '/home/op', 'user home'],
    ['${workspaceFolder}', '/srv/work/project-x', 'workspace root'],
    ['${workspaceFolderBasename}', 'project-x', 'workspace basename'],
    ['${pathSeparator}', '/', 'path separator'],
    ['${/}', '/', 'path separator shorthand'],
    ['${lower}', 'lower-value', 'other ${...} fall through to the environment'],
    ['${LOWER}', '${LOWER}', 'names are case-sensitive'],
    ['${USERHOME}', '${USERHOME}', 'built-in names are case-sensitive too'],
    ['${EMPTY}', '', 'a set but empty variable resolves to empty'],
    ['Bearer ${API_KEY}', 'Bearer from-dotenv', 'inside other text'],
    ['${userHome}${/}certs${/}${ONLY_ENV}.pem', '/home/op/certs/env-value.pem', 'several references in one value'],
    ['$API_KEY and {API_KEY}', '$API_KEY and {API_KEY}', 'only the ${...} form is a reference'],
    ['${}', '${}', 'an empty reference stays'],
    ['no references', 'no references', 'plain text unchanged'],
  ])('%s -> %s (%s)', (input, expected) => {
    expect(interpolate(input, scope)).toBe(expected);
  });

  it('uses the platform separator when none is given', () => {
    expect(interpolate('${/}', { ...scope, pathSeparator: undefined })).toBe(process.platform === 'win32' ? '\\' : '/');
  });

  it('takes the basename with a trailing separator', () => {
    expect(interpolate('${workspaceFolderBasename}', { ...scope, workspaceFolder: '/srv/app/' })).toBe('app');
  });

  it('does not read inherited properties as variables', () => {
    expect(interpolate('${toString}', scope)).toBe('${toString}');
  });

  it('walks nested values, leaves non-strings alone, and honours the skip predicate', () => {
    const input = { a: ['${API_KEY}', 3, true, null], b: { prompt: '${API_KEY}', url: 'https://x/${ONLY_ENV}' } };
    const out = interpolateDeep(input, scope, (path) => path.at(-1) === 'prompt');
    expect(out).toEqual({ a: ['from-dotenv', 3, true, null], b: { prompt: '${API_KEY}', url: 'https://x/env-value' } });
    expect(input.a[0]).toBe('${API_KEY}');
  });
});
