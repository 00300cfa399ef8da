import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

const running: RunningCli[] = [];
afterEach(async () => { await stopClis(running); });

describe('a gateway on a home that was a cluster node', () => {
  it('says at start that it runs alone on SQLite (no database URL), and how to rejoin or leave', async () => {
    const home = preparedHome();
    fs.writeFileSync(path.join(home.root, 'node-id'), 'vm-1234abcd\n');
    const cli = startCli(['gateway', '--home', home.root], { env: { SWITCHBOARD_DATABASE_URL: '' } });
    running.push(cli);
    const output = await cli.waitFor('Control channel listening', 30_000);
    expect(output).toContain('This home was cluster node vm-1234abcd, but no database URL is set');
    expect(output).toContain(`delete ${path.join(home.root, 'node-id')}`);
    // gateway.log is opened asynchronously: it may not exist yet when the console line is out.
    await waitUntil(() => fs.existsSync(home.gatewayLog) && fs.readFileSync(home.gatewayLog, 'utf8').includes('This home was cluster node vm-1234abcd'), 10_000, 'the warning in gateway.log');
  });

  it('says nothing of the kind on a home that never was one', async () => {
    const home = preparedHome();
    const cli = startCli(['gateway', '--home', home.root], { env: { SWITCHBOARD_DATABASE_URL: '' } });
    running.push(cli);
    const output = await cli.waitFor('Control channel listening', 30_000);
    expect(output).not.toContain('cluster node');
    expect(fs.existsSync(path.join(home.root, 'node-id'))).toBe(false);
  });
});
