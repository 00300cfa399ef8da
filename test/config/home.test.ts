import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandFor, homeLayout, resolveHome } from '../../source/config/home.js';

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

  it('hints name a command with --home unless it is the home found without it, quoted for a shell', () => {
    expect(commandFor(resolveHome(undefined), 'gateway')).toBe('switchboard gateway');
    expect(commandFor(homeLayout('/srv/a'), 'gateway')).toBe('switchboard gateway --home /srv/a');
    expect(commandFor(homeLayout('/srv/a'), '')).toBe('switchboard --home /srv/a');
    expect(commandFor(homeLayout("/srv/it's here"), 'status')).toBe("switchboard status --home '/srv/it'\\''s here'");
  });
});
