import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HomeGateway } from '../../source/operations/host.js';
import { startingGateway } from '../../source/operations/starting-link.js';
import type { GatewayState } from '../../source/operations/state.js';
import { preparedHome } from '../helpers/host.js';

describe('the console\'s in-process gateway before it runs (startingGateway)', () => {
  it('gives a snapshot from the config at once, holds operations until the gateway runs, then speaks for it', async () => {
    const home = preparedHome((config) => {
      config.mcp_servers = { files: { command: 'node', args: ['-e', '0'] }, off: { command: 'node', enabled: false } };
    });
    const starting = startingGateway(home, 'test');
    const snapshots: GatewayState[] = [];
    const unsubscribe = starting.link.subscribe({ onSnapshot: (state) => snapshots.push(state), onEvent: () => {} });
    // Drawn before anything started: no listener, no lock, servers connecting (or disabled).
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]!.gateway).toMatchObject({ status: 'starting', startedAtMs: null, model: 'dry-run', webhook: { enabled: true, url: null, routes: ['demo'] } });
    expect(snapshots[0]!.mcpServers.map((server) => [server.name, server.status])).toEqual([['files', 'connecting'], ['off', 'disabled']]);
    expect(fs.existsSync(home.lockFile)).toBe(false);
    expect(starting.link.hello()).toMatchObject({ pid: process.pid, webhookUrl: null });

    const routes = starting.link.operations.webhooks.routes({});
    let started: HomeGateway | undefined;
    try {
      started = await starting.start();
      // The gateway's own snapshot follows the provisional one; operations asked meanwhile are answered by it.
      expect(snapshots.at(-1)!.gateway.status).toBe('running');
      expect(snapshots.at(-1)!.gateway.webhook.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await routes).routes.map((route) => route.name)).toEqual(['demo']);
      expect(starting.link.hello().webhookUrl).toBe(snapshots.at(-1)!.gateway.webhook.url);
      expect(await starting.link.operations.jobs.list({})).toMatchObject({ jobs: [] });
    } finally {
      unsubscribe();
      await started?.stop('test over');
    }
  });

  it('a start that fails (the home is locked) fails the operations waiting for it with the same error', async () => {
    const home = preparedHome();
    fs.writeFileSync(home.lockFile, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
    const starting = startingGateway(home, 'test');
    const waiting = starting.link.operations.jobs.list({});
    const failure = await starting.start().then(() => undefined, (error: unknown) => error);
    expect(failure).toMatchObject({ code: 'GATEWAY_LOCKED' });
    await expect(waiting).rejects.toBe(failure);
  });
});
