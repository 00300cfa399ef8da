import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../config/errors.js';
import type { ResolvedWebhookListener } from '../config/load.js';

/** The address operators can paste: wildcard binds are reached through localhost. */
export function listenerUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Binds the Fastify app; returns the URL actually bound (port 0 picks a free port). */
export async function listen(app: FastifyInstance, settings: ResolvedWebhookListener, configFile: string): Promise<{ url: string; port: number }> {
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const address = `${settings.host}:${settings.port}`;
    if (code === 'EADDRINUSE') {
      throw new ConfigError('PORT_IN_USE', `Webhook listener cannot start: ${address} is already in use`, `Stop what holds the port, or change platforms.webhook.extra.port in ${configFile}.`);
    }
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND') {
      throw new ConfigError('LISTEN_FAILED', `Webhook listener cannot bind ${address}: ${(error as Error).message}`, `Check platforms.webhook.extra.host and platforms.webhook.extra.port in ${configFile}.`);
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  return { url: listenerUrl(settings.host, port), port };
}
