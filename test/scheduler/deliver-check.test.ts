import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../source/config/types.js';
import { jobDeliverCheck } from '../../source/scheduler/deliver-check.js';
import { tempHome } from '../helpers/temp-home.js';

describe('a job\'s deliver checked by a running gateway', () => {
  it('says a platform enabled in config.json after the gateway loaded it needs a restart; otherwise the usual reason', () => {
    const file = tempHome().configFile;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const loaded: ConfigFile = { platforms: {} } as ConfigFile;
    fs.writeFileSync(file, JSON.stringify({ platforms: { telegram: { enabled: true, bot_token: 'x', home_channel: '1' } } }));
    const check = jobDeliverCheck(loaded, file);
    expect(check('telegram')).toEqual({ ok: false, reason: 'platforms.telegram is enabled in config.json, but the running gateway loaded its config before that change (platforms apply at a restart): restart the gateway, then deliver to telegram' });
    expect(check('slack')).toMatchObject({ ok: false, reason: expect.stringContaining('platforms.slack is not enabled') });
    expect(check('log')).toMatchObject({ ok: true });
    // Without the file (the CLI's own check, reading config.json fresh), the reason is the live one.
    expect(jobDeliverCheck(loaded)('telegram')).toMatchObject({ ok: false, reason: expect.stringContaining('platforms.telegram is not enabled') });
  });
});
