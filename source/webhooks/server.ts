import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export interface WebhookServerDeps {
  logger: Logger;
}

/** The webhook platform's HTTP surface. Never listens by itself: the gateway (or a test's inject()) drives it. */
export function buildWebhookServer(deps: WebhookServerDeps): FastifyInstance {
  const app = Fastify({
    // Fastify's own lines are warnings and errors only; request outcomes are logged by our hooks.
    loggerInstance: deps.logger.child({ component: 'webhook' }, { level: 'warn' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get('/health', async () => ({ status: 'ok', platform: 'webhook' }));
  return app;
}
