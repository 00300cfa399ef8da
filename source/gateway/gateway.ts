import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/load.js';
import { createAuditLog } from '../store/audit.js';
import type { Store } from '../store/database.js';
import { buildWebhookServer } from '../webhooks/server.js';
import { createGatewayEvents, type GatewayEvents } from './events.js';
import { createLifecycle, type Component } from './lifecycle.js';
import { acquireGatewayLock } from './lock.js';
import { listen } from './webhook-listener.js';

export interface GatewayDeps {
  config: ResolvedConfig;
  store: Store;
  logger: Logger;
  now?: () => number;
  pid?: number;
}

export type GatewayStatus = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface GatewaySnapshot {
  status: GatewayStatus;
  pid: number;
  home: string;
  startedAtMs: number | null;
  model: string;
  timezone: string;
  webhook: { enabled: boolean; url: string | null; routes: string[] };
}

export interface Gateway {
  events: GatewayEvents;
  start(): Promise<void>;
  stop(reason?: string): Promise<void>;
  snapshot(): GatewaySnapshot;
  /** The webhook Fastify app, for tests' inject(); null while the platform is disabled. */
  readonly webhookApp: FastifyInstance | null;
}

/** Wires the core: the home lock first, then intake. Stop runs the same list backwards. */
export function createGateway(deps: GatewayDeps): Gateway {
  const now = deps.now ?? Date.now;
  const pid = deps.pid ?? process.pid;
  const { config, logger } = deps;
  const events = createGatewayEvents();
  const audit = createAuditLog(deps.store, now);
  const webhookApp = config.webhook.enabled ? buildWebhookServer({ logger }) : null;

  let status: GatewayStatus = 'idle';
  let startedAtMs: number | null = null;
  let webhookUrl: string | null = null;
  let lock: ReturnType<typeof acquireGatewayLock> | undefined;

  const components: Component[] = [
    {
      name: 'lock',
      start: () => {
        lock = acquireGatewayLock(config.home.lockFile, { pid, startedAt: new Date(now()).toISOString() });
      },
      stop: () => lock?.release(),
    },
  ];
  if (webhookApp) {
    components.push({
      name: 'webhook listener',
      start: async () => {
        const bound = await listen(webhookApp, config.webhook, config.home.configFile);
        webhookUrl = bound.url;
        lock?.update({ pid, startedAt: new Date(startedAtMs ?? now()).toISOString(), webhookUrl });
        const routes = config.webhook.routeNames;
        logger.info(`Webhook listener on ${bound.url} - routes: ${routes.length > 0 ? routes.join(', ') : '(none)'}`);
        events.emit('webhook.listening', { url: bound.url, routes });
      },
      stop: async () => {
        await webhookApp.close();
        webhookUrl = null;
      },
    });
  }
  const lifecycle = createLifecycle(components, (name, error) => logger.error({ err: error }, `Stopping ${name} failed`));

  return {
    events,
    webhookApp,
    async start() {
      if (status !== 'idle') throw new Error(`Gateway cannot start from status ${status}`);
      status = 'starting';
      startedAtMs = now();
      try {
        await lifecycle.start();
      } catch (error) {
        status = 'stopped';
        throw error;
      }
      if (!webhookApp) logger.info('Webhook platform disabled (platforms.webhook.enabled is not true)');
      status = 'running';
      audit.record('gateway', 'gateway.started', `pid ${pid}`);
      events.emit('gateway.started', { atMs: now(), pid });
    },
    async stop(reason = 'stop requested') {
      if (status !== 'running') return;
      status = 'stopping';
      logger.info(`Gateway stopping: ${reason}`);
      await lifecycle.stop();
      status = 'stopped';
      audit.record('gateway', 'gateway.stopped', reason);
      events.emit('gateway.stopped', { atMs: now(), reason });
    },
    snapshot: () => ({
      status,
      pid,
      home: config.home.root,
      startedAtMs,
      model: config.values.model?.provider ?? 'dry-run',
      timezone: config.timezone,
      webhook: { enabled: config.webhook.enabled, url: webhookUrl, routes: config.webhook.routeNames },
    }),
  };
}
