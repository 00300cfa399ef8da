import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../source/config/errors.js';
import { GatewayLockedError, runningGateway } from '../../source/gateway/lock.js';
import { defaultConfig } from '../../source/config/default-config.js';
import { resolveConfig } from '../../source/config/load.js';
import type { RouteConfig } from '../../source/config/types.js';
import { createGateway } from '../../source/gateway/gateway.js';
import { writeConfigFile } from '../../source/infra/config-file.js';
import { openStore } from '../../source/store/database.js';
import { createAuditLog } from '../../source/store/audit.js';
import { makeGateway } from '../helpers/gateway.js';
import { tempHome } from '../helpers/temp-home.js';
import { captureLogger, githubHeaders, waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function started(home = tempHome(), edit?: Parameters<typeof makeGateway>[1]) {
  const made = makeGateway(home, edit);
  cleanups.push(async () => { await made.gateway.stop('test over'); made.store.close(); });
  return { ...made, home };
}

describe('gateway core', () => {
  it('starts on an ephemeral port, serves /health over a real socket and stops in order', async () => {
    const { gateway, home, store } = started();
    const events: string[] = [];
    gateway.events.on('webhook.listening', ({ url, routes }) => events.push(`listening ${routes.join(',')} ${url.startsWith('http://127.0.0.1:')}`));
    gateway.events.on('gateway.started', () => events.push('started'));
    gateway.events.on('gateway.stopped', ({ reason }) => events.push(`stopped: ${reason}`));

    await gateway.start();
    const snapshot = gateway.snapshot();
    expect(snapshot.status).toBe('running');
    expect(snapshot.webhook.routes).toEqual(['demo']);
    const response = await fetch(`${snapshot.webhook.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', platform: 'webhook', store: { fault: null, keptWrites: 0 }, log: { dropped: 0, fault: null } });
    expect(runningGateway(home.lockFile)).toMatchObject({ pid: process.pid, webhookUrl: snapshot.webhook.url });

    await gateway.stop('done');
    expect(gateway.snapshot().status).toBe('stopped');
    expect(runningGateway(home.lockFile)).toBeUndefined();
    await expect(fetch(`${snapshot.webhook.url}/health`)).rejects.toThrow();
    expect(events).toEqual(['listening demo true', 'started', 'stopped: done']);
    expect(createAuditLog(store).recent().map((entry) => entry.kind)).toEqual(['gateway.stopped', 'gateway.started']);
  });

  it('answers /health through inject() too', async () => {
    const { gateway } = started();
    const response = await gateway.webhookApp!.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok', platform: 'webhook', store: { fault: null } });
  });

  it('refuses a port in use with the address and the config key, and releases the lock', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    const { gateway, home } = started(undefined, (config) => { config.platforms!.webhook!.extra!.port = port; });

    const failure = await gateway.start().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toBe(`Webhook listener cannot start: 127.0.0.1:${port} is already in use`);
    expect((failure as ConfigError).hint).toContain('platforms.webhook.extra.port');
    expect(runningGateway(home.lockFile)).toBeUndefined();
    expect(gateway.snapshot().status).toBe('stopped');
  });

  it('refuses a second gateway on the same home, naming the pid that holds it', async () => {
    const home = tempHome();
    const first = started(home);
    await first.gateway.start();
    const second = makeGateway(home, undefined, process.pid + 1);
    cleanups.push(() => second.store.close());
    const failure = await second.gateway.start().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayLockedError);
    expect((failure as Error).message).toContain(`pid ${process.pid}`);
    // The first one still owns the home and keeps serving.
    expect(runningGateway(home.lockFile)?.pid).toBe(process.pid);
    expect((await fetch(`${first.gateway.snapshot().webhook.url}/health`)).status).toBe(200);
  });

  it('takes over a lock left by a dead process', async () => {
    const home = tempHome();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(home.root, { recursive: true });
    writeFileSync(home.lockFile, JSON.stringify({ pid: 2 ** 22 + 12345, startedAt: 'long ago' }));
    const { gateway } = started(home);
    await gateway.start();
    expect(runningGateway(home.lockFile)?.pid).toBe(process.pid);
  });

  it('takes over a lock whose pid now belongs to another process (pid 1): the lock names the process by its start time', async () => {
    const home = tempHome();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(home.root, { recursive: true });
    writeFileSync(home.lockFile, JSON.stringify({ pid: 1, startedAt: 'before a reboot', processStart: '1' }));
    expect(runningGateway(home.lockFile)).toBeUndefined();
    const { gateway } = started(home);
    await gateway.start();
    expect(runningGateway(home.lockFile)).toMatchObject({ pid: process.pid, processStart: expect.any(String) });
  });

  it('runs without a listener when the webhook platform is disabled', async () => {
    const { gateway } = started(undefined, (config) => { config.platforms!.webhook!.enabled = false; });
    await gateway.start();
    expect(gateway.webhookApp).toBeNull();
    expect(gateway.snapshot().webhook).toEqual({ enabled: false, url: null, routes: ['demo'], subscriptions: [] });
    expect(await gateway.webhooks.counts()).toBeNull();
  });

  it('applies routes edited on disk by another process within seconds; an invalid edit changes nothing and is logged', async () => {
    const home = tempHome();
    const file = defaultConfig();
    file.platforms!.webhook!.extra!.port = 0;
    const routes = file.platforms!.webhook!.extra!.routes! as Record<string, RouteConfig>;
    const write = () => writeConfigFile(home.configFile, file as Record<string, unknown>);
    write();
    const store = openStore(home.stateDb);
    const { logger, log } = captureLogger('info');
    const gateway = createGateway({ config: resolveConfig(file, home, {}), store, logger });
    cleanups.push(async () => { await gateway.stop('test over'); store.close(); });
    await gateway.start();
    const url = gateway.snapshot().webhook.url!;
    const post = (route: string) => {
      const body = JSON.stringify({ hello: 'disk' });
      return fetch(`${url}/webhooks/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders('disk-secret-0123456789', body, 'push') }, body });
    };
    expect((await post('fromdisk')).status).toBe(404);
    routes.fromdisk = { secret: 'disk-secret-0123456789', deliver: 'log' };
    write();
    await waitUntil(async () => (await post('fromdisk')).status === 202, 10_000, 'the route written on disk is served');
    expect(createAuditLog(store).recent().some((entry) => entry.source === 'file' && entry.detail?.includes('platforms.webhook.extra.routes.fromdisk'))).toBe(true);

    // A route without a secret would stop a start: the watch leaves the config in effect and says why.
    routes.broken = { deliver: 'log' };
    write();
    await waitUntil(() => log.lines.some((line) => line.includes('config.json changed on disk but was not applied') && line.includes('broken')), 10_000);
    expect((await gateway.webhooks.routes()).map((route) => route.name)).toEqual(['demo', 'fromdisk']);
    expect((await post('fromdisk')).status).toBe(202);
  });

  it('never swaps in an INSECURE_NO_AUTH route while the listener is bound to a non-loopback host, even when the file moves the host', async () => {
    const home = tempHome();
    const file = defaultConfig();
    Object.assign(file.platforms!.webhook!.extra!, { host: '0.0.0.0', port: 0 });
    const write = () => writeConfigFile(home.configFile, file as Record<string, unknown>);
    write();
    const store = openStore(home.stateDb);
    const gateway = createGateway({ config: resolveConfig(file, home, {}), store, logger: captureLogger().logger });
    cleanups.push(async () => { await gateway.stop('test over'); store.close(); });
    await gateway.start();
    // The host change needs a restart; the route would be served now, on 0.0.0.0, without a signature.
    Object.assign(file.platforms!.webhook!.extra!, { host: '127.0.0.1' });
    (file.platforms!.webhook!.extra!.routes!.demo as RouteConfig).secret = 'INSECURE_NO_AUTH';
    write();
    const result = await gateway.config.reload();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map((issue) => issue.reason).join('\n')).toContain('uses INSECURE_NO_AUTH but the listener binds 0.0.0.0');
    const url = gateway.snapshot().webhook.url!.replace('0.0.0.0', '127.0.0.1');
    const unsigned = await fetch(`${url}/webhooks/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(401);
  });
});
