import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { ResolvedRoute } from './config.js';
import { clientErrorHandler, errorBody, frameworkErrors, installErrorResponses } from './error-responses.js';
import type { RateLimiter } from './rate-limit.js';
import { deliveryIdFrom, eventHeader, eventOfPayload, givenDeliveryIdOf, parseBody, selectHeaders } from './request.js';
import { header, verifyRequest } from './signature.js';
import type { RequestOutcome, WebhookRequestRecord } from './types.js';
import { StoreUnavailableError } from '../store/store-fault.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** No route has a schema: compilers that do nothing, so Ajv and fast-json-stringify never load (about 50 ms of a start). */
const noSchemaCompilers = {
  buildValidator: () => () => () => true,
  buildSerializer: () => () => (data: unknown) => JSON.stringify(data),
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export interface IntakeInput {
  route: ResolvedRoute;
  event: string;
  deliveryId: string;
  /** False for generated ids: nothing to deduplicate on (spec 6.5). */
  dedup: boolean;
  headers: Record<string, string>;
  rawBody: Buffer;
  payload: Record<string, unknown>;
}

export interface WebhookServerDeps {
  logger: Logger;
  maxBodyBytes: number;
  now: () => number;
  /** Static routes first, then subscriptions; read per request so new subscriptions are served at once. */
  findRoute(name: string): ResolvedRoute | undefined;
  rateLimiter: RateLimiter;
  /** Persists and enqueues (before the 202 goes out), or reports a duplicate. */
  accept(input: IntakeInput): Promise<{ kind: 'accepted' } | { kind: 'duplicate' }>;
  /** Called once per request from the onResponse hook, whatever the outcome. */
  onOutcome(record: WebhookRequestRecord): void;
  /** GET /health's body; `unavailable` answers 503 (a load balancer stops sending). */
  health?: () => { status: 'ok' | 'degraded' | 'unavailable' };
  /** GET /metrics (Prometheus text), when the config turns it on. */
  metrics?: { render(): Promise<{ contentType: string; text: string }> };
}

interface RequestState {
  route: string;
  resolved?: ResolvedRoute;
  event: string;
  deliveryId: string;
  /** The event and delivery id as the headers give them (read once, in onRequest). */
  headerEvent: string | undefined;
  givenDeliveryId: string | undefined;
  outcome?: RequestOutcome;
  reason?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    webhook: RequestState | null;
  }
}

/**
 * The webhook platform's HTTP surface. Never listens by itself: the gateway (or a test's inject())
 * drives it. Checks run in the documented order: route 404, size 413, auth 401, rate 429,
 * body 400/415, event filter (ignored), idempotency (duplicate), then 202.
 */
export function buildWebhookServer(deps: WebhookServerDeps): FastifyInstance {
  const app = Fastify({
    // Fastify's own lines are warnings and errors only; request outcomes are logged by our hook.
    loggerInstance: deps.logger.child({ component: 'webhook' }, { level: 'warn' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.maxBodyBytes,
    clientErrorHandler: clientErrorHandler(deps.onOutcome, deps.now),
    frameworkErrors,
    schemaController: { compilersFactory: noSchemaCompilers },
  });
  installErrorResponses(app);
  app.get('/health', async (_request, reply) => {
    const health = deps.health?.() ?? { status: 'ok' as const };
    return reply.code(health.status === 'unavailable' ? 503 : 200).send({ ...health, platform: 'webhook' });
  });
  const { metrics } = deps;
  if (metrics) {
    app.get('/metrics', async (_request, reply) => {
      const { contentType, text } = await metrics.render();
      return reply.type(contentType).send(text);
    });
  }
  app.decorateRequest('webhook', null);

  app.register(async (scope) => {
    // Raw bytes for every content type: the signature covers the body exactly as sent.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBodyBytes }, (_request, body, done) => done(null, body));

    // Callback hooks, not async ones: no promise and no extra microtask per request (a sync throw is
    // handled by Fastify the same way as a rejection).
    scope.addHook('onResponse', (request, reply, done) => {
      const state = request.webhook;
      if (!state) return done();
      deps.onOutcome({
        route: state.route,
        event: state.event,
        deliveryId: state.deliveryId,
        outcome: state.outcome ?? outcomeOfStatus(reply.statusCode),
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime * 100) / 100,
        ...(state.reason ? { reason: state.reason } : {}),
        atMs: deps.now(),
      });
      done();
    });

    scope.setErrorHandler(async (error: Error & { code?: string; statusCode?: number }, request, reply) => {
      const state = request.webhook;
      const route = state?.route;
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
        if (state) state.outcome = 'too_large';
        return reply.code(413).send(errorBody('Payload too large', tooLargeMessage(route, deps.maxBodyBytes), route));
      }
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        if (state) Object.assign(state, { outcome: 'bad_request', reason: error.message });
        return reply.code(400).send(errorBody(`Bad request: ${error.message}`, `Route "${route}": the request was refused: ${error.message}`, route));
      }
      if (error instanceof StoreUnavailableError) {
        // Nothing was accepted: the sender retries (GitHub and GitLab show the 503 and let one redeliver).
        if (state) Object.assign(state, { outcome: 'error', reason: error.message });
        reply.header('retry-after', String(error.retryAfterSeconds));
        return reply.code(503).send(errorBody('Service unavailable', `Route "${route}": not accepted, ${error.message}; retry after ${error.retryAfterSeconds} s`, route));
      }
      if (state) Object.assign(state, { outcome: 'error', reason: error.message });
      request.log.error({ err: error, route }, 'Webhook request failed');
      return reply.code(500).send(errorBody('Internal error', `Route "${route}": the listener failed on this request; see logs/gateway.log`, route));
    });

    scope.post<{ Params: { name: string } }>('/webhooks/:name', {
      onRequest: (request, reply, done) => {
        const name = request.params.name;
        const headerEvent = eventHeader(request.headers);
        const givenDeliveryId = givenDeliveryIdOf(request.headers);
        const state: RequestState = { route: name.slice(0, 100), event: headerEvent || '-', deliveryId: givenDeliveryId || '-', headerEvent, givenDeliveryId };
        request.webhook = state;
        state.resolved = deps.findRoute(name);
        // A refusal answers here and does not call done(): the request goes no further.
        if (!state.resolved) return void refuse(reply, state, 'unknown_route', 404, `Unknown route: ${state.route}`, `No static route or subscription is named "${state.route}"; see: switchboard webhook list`);
        const length = Number(request.headers['content-length']);
        if (Number.isFinite(length) && length > deps.maxBodyBytes) return void refuse(reply, state, 'too_large', 413, 'Payload too large', tooLargeMessage(state.route, deps.maxBodyBytes));
        done();
      },
    }, async (request, reply) => handle(deps, request, reply));
  });
  return app;
}

async function handle(deps: WebhookServerDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const state = request.webhook!;
  const route = state.resolved!;
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);

  if (!route.insecure) {
    const auth = verifyRequest(request.headers, raw, route.secrets, deps.now());
    // The reason is logged, never sent: it would tell a forger what to fix.
    if (!auth.ok) return refuse(reply, state, 'unauthorized', 401, 'Invalid signature', `Route "${route.name}": the request's signature or token does not verify with the route's secret`, auth.reason);
  }
  const rate = deps.rateLimiter.check(route.name, route.rateLimit);
  if (!rate.ok) {
    reply.header('retry-after', String(rate.retryAfterSeconds));
    const why = `more than ${route.rateLimit} requests in 60 s`;
    return refuse(reply, state, 'rate_limited', 429, 'Rate limit exceeded', `Route "${route.name}": ${why}; retry after ${rate.retryAfterSeconds} s`, why);
  }
  const body = parseBody(header(request.headers, 'content-type'), raw);
  if (!body.ok) return refuse(reply, state, body.status === 415 ? 'unsupported_type' : 'bad_request', body.status, body.reason, `Route "${route.name}": ${body.reason}`);

  const event = state.headerEvent || eventOfPayload(body.value);
  const delivery = deliveryIdFrom(state.givenDeliveryId);
  state.event = event;
  state.deliveryId = delivery.id;
  // GitHub's connectivity `ping` (sent when a hook is registered) is ignored unless listed, even on
  // a route that accepts every event (spec 6.2): registering a hook should not start an agent run.
  const listed = route.events.length === 0 ? event !== 'ping' : route.events.includes(event);
  if (!listed) {
    state.outcome = 'ignored';
    return reply.code(200).send({ status: 'ignored', event });
  }
  const result = await deps.accept({ route, event, deliveryId: delivery.id, dedup: delivery.fromSender, headers: selectHeaders(request.headers), rawBody: raw, payload: body.value });
  if (result.kind === 'duplicate') {
    state.outcome = 'duplicate';
    return reply.code(200).send({ status: 'duplicate', delivery_id: delivery.id });
  }
  state.outcome = 'accepted';
  // Built as text: the same JSON as the object, without the serializer's per-reply work.
  const accepted = `{"status":"accepted","route":${JSON.stringify(route.name)},"event":${JSON.stringify(event)},"delivery_id":${JSON.stringify(delivery.id)}}`;
  return reply.code(202).type(JSON_TYPE).send(accepted);
}

/** `message` goes to the sender; `reason` (default: the message) to the log and the console. */
function refuse(reply: FastifyReply, state: RequestState, outcome: RequestOutcome, status: number, error: string, message: string, reason?: string): FastifyReply {
  state.outcome = outcome;
  state.reason = reason ?? message;
  return reply.code(status).send(errorBody(error, message, state.route));
}

function tooLargeMessage(route: string | undefined, maxBodyBytes: number): string {
  return `${route ? `Route "${route}": the` : 'The'} body is larger than ${maxBodyBytes} bytes (platforms.webhook.extra.max_body_bytes)`;
}

function outcomeOfStatus(status: number): RequestOutcome {
  if (status === 413) return 'too_large';
  if (status === 404) return 'unknown_route';
  return status >= 500 ? 'error' : 'bad_request';
}
