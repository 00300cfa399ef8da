import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveHome } from '../../source/config/home.js';

describe('the home folder', () => {
  it('is --home, then $SWITCHBOARD_HOME, then ~/.switchboard; an empty value counts as none', () => {
    const fallback = path.join(os.homedir(), '.switchboard');
    expect(resolveHome('/srv/a', { SWITCHBOARD_HOME: '/srv/b' }).root).toBe('/srv/a');
    expect(resolveHome(undefined, { SWITCHBOARD_HOME: '/srv/b' }).root).toBe('/srv/b');
    expect(resolveHome(undefined, {}).root).toBe(fallback);
    // `SWITCHBOARD_HOME= switchboard ...` or an exported empty variable: not the current folder.
    expect(resolveHome(undefined, { SWITCHBOARD_HOME: '' }).root).toBe(fallback);
    expect(resolveHome('', { SWITCHBOARD_HOME: '/srv/b' }).root).toBe('/srv/b');
    expect(resolveHome('~/x', {}).root).toBe(path.join(os.homedir(), 'x'));
  });
});
