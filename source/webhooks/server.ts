import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import type { ResolvedRoute } from './config.js';
import { clientErrorHandler, errorBody, frameworkErrors, installErrorResponses } from './error-responses.js';
import type { RateDecision, RateLimiter } from './rate-limit.js';
import { eventHeader, eventOfPayload, generatedDeliveryId, givenDeliveryIdOf, parseBody, selectHeaders } from './request.js';
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
  /**
   * Static routes first (from memory, at once), then subscriptions, read from the store per request
   * so a subscription made anywhere is served at once (a promise when the store answers later).
   */
  findRoute(name: string): ResolvedRoute | undefined | Promise<ResolvedRoute | undefined>;
  rateLimiter: RateLimiter;
  /**
   * Persists and enqueues, or finds a duplicate. SQLite decides at once in its open commit group and
   * the answer waits for `committed` (one promise for the accepts that share a commit); a store over
   * the network answers with a promise of the outcome, settled once durable. Throws (or rejects)
   * when the store cannot write.
   */
  accept(input: IntakeInput): AcceptResult | Promise<AcceptKind>;
  /** Called once per answered request, whatever the outcome. */
  onOutcome(record: WebhookRequestRecord): void;
  /** GET /health's body; `unavailable` answers 503 (a load balancer stops sending). */
  health?: () => { status: 'ok' | 'degraded' | 'unavailable' };
  /** GET /metrics (Prometheus text), when the config turns it on. */
  metrics?: { render(): Promise<{ contentType: string; text: string }> };
}

export type AcceptKind = 'accepted' | 'duplicate';

export interface AcceptResult {
  kind: AcceptKind;
  /** Settles once the delivery (or the one it duplicates) is committed; rejects if that commit failed. */
  committed: Promise<void>;
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
  /** The body of the 202 (or duplicate 200), sent once the commit settles. */
  answer?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    webhook: RequestState | null;
  }
}

/** What the route's handlers share: the deps, how an answer is recorded, and the replies waiting on a commit. */
interface Intake {
  deps: WebhookServerDeps;
  wait: CommitWaiters;
}

/**
 * The webhook platform's HTTP surface. Never listens by itself: the gateway (or a test's inject())
 * drives it. Checks run in the documented order: route 404, size 413, auth 401, rate 429,
 * body 400/415, event filter (ignored), idempotency (duplicate), then 202. Each answer is recorded
 * (deps.onOutcome) where it is sent: no onResponse hook, so Fastify runs no hook chain after a reply.
 */
export function buildWebhookServer(deps: WebhookServerDeps): FastifyInstance {
  const componentLogger = deps.logger.child({ component: 'webhook' }, { level: 'warn' }) as FastifyBaseLogger;
  const app = Fastify({
    // Fastify's own lines are warnings and errors only; request outcomes are logged by deps.onOutcome.
    loggerInstance: componentLogger,
    // No pino child per request (Fastify builds one otherwise): request.log is the component's logger.
    childLoggerFactory: () => componentLogger,
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
  const intake: Intake = {
    deps,
    wait: createCommitWaiters((reply) => answerAccepted(deps, reply)),
  };

  app.register(async (scope) => {
    // Raw bytes for every content type: the signature covers the body exactly as sent.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBodyBytes }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      answerError(deps, error, request, reply);
      recordOutcome(deps, reply);
    });
    scope.post<{ Params: { name: string } }>('/webhooks/:name', {
      onRequest: (request, reply, done) => {
        const name = request.params.name;
        const headerEvent = eventHeader(request.headers);
        const givenDeliveryId = givenDeliveryIdOf(request.headers);
        const state: RequestState = { route: name.slice(0, 100), event: headerEvent || '-', deliveryId: givenDeliveryId || '-', headerEvent, givenDeliveryId };
        request.webhook = state;
        const found = deps.findRoute(name);
        if (!(found instanceof Promise)) return routeFound(deps, request, reply, found, done);
        found.then((route) => routeFound(deps, request, reply, route, done), (error: Error) => done(error));
      },
    }, (request, reply) => {
      handle(intake, request, reply);
    });
  });
  return app;
}

/** A refusal answers here and does not call done(): the request goes no further. */
function routeFound(deps: WebhookServerDeps, request: FastifyRequest, reply: FastifyReply, route: ResolvedRoute | undefined, done: () => void): void {
  const state = request.webhook!;
  state.resolved = route;
  if (!route) return refuse(deps, reply, state, 'unknown_route', 404, `Unknown route: ${state.route}`, `No static route or subscription is named "${state.route}"; see: switchboard webhook list`);
  const length = Number(request.headers['content-length']);
  if (Number.isFinite(length) && length > deps.maxBodyBytes) return refuse(deps, reply, state, 'too_large', 413, 'Payload too large', tooLargeMessage(state.route, deps.maxBodyBytes));
  done();
}

/**
 * Synchronous up to the accept when the rate limit answers at once (in memory, SQLite's path); a
 * limiter shared by several nodes answers with a promise. The answer goes out once its commit
 * settles (createCommitWaiters). A throw (the store cannot take the write) reaches the error handler.
 */
function handle(intake: Intake, request: FastifyRequest, reply: FastifyReply): void {
  const { deps } = intake;
  const state = request.webhook!;
  const route = state.resolved!;
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);

  if (!route.insecure) {
    const auth = verifyRequest(request.headers, raw, route.secrets, deps.now());
    // The reason is logged, never sent: it would tell a forger what to fix.
    if (!auth.ok) return refuse(deps, reply, state, 'unauthorized', 401, 'Invalid signature', `Route "${route.name}": the request's signature or token does not verify with the route's secret`, auth.reason);
  }
  const rate = deps.rateLimiter.check(route.name, route.rateLimit);
  if (rate instanceof Promise) {
    // A failed check (the store cannot answer) reaches the error handler, as a failed accept does.
    rate.then((decision) => rateDecided(intake, request, reply, raw, decision)).catch((error: Error) => reply.send(error));
    return;
  }
  rateDecided(intake, request, reply, raw, rate);
}

function rateDecided({ deps, wait }: Intake, request: FastifyRequest, reply: FastifyReply, raw: Buffer, rate: RateDecision): void {
  const state = request.webhook!;
  const route = state.resolved!;
  if (!rate.ok) {
    reply.header('retry-after', String(rate.retryAfterSeconds));
    const why = `more than ${route.rateLimit} requests in 60 s`;
    return refuse(deps, reply, state, 'rate_limited', 429, 'Rate limit exceeded', `Route "${route.name}": ${why}; retry after ${rate.retryAfterSeconds} s`, why);
  }
  const body = parseBody(header(request.headers, 'content-type'), raw);
  if (!body.ok) return refuse(deps, reply, state, body.status === 415 ? 'unsupported_type' : 'bad_request', body.status, body.reason, `Route "${route.name}": ${body.reason}`);

  const event = state.headerEvent || eventOfPayload(body.value);
  const given = state.givenDeliveryId;
  const deliveryId = given || generatedDeliveryId();
  state.event = event;
  state.deliveryId = deliveryId;
  // GitHub's connectivity `ping` (sent when a hook is registered) is ignored unless listed, even on
  // a route that accepts every event (spec 6.2): registering a hook should not start an agent run.
  const listed = route.events.length === 0 ? event !== 'ping' : route.events.includes(event);
  if (!listed) {
    state.outcome = 'ignored';
    reply.code(200).send({ status: 'ignored', event });
    return recordOutcome(deps, reply);
  }
  // A generated id is unique: nothing to deduplicate on (spec 6.5).
  const result = deps.accept({ route, event, deliveryId, dedup: !!given, headers: selectHeaders(request.headers), rawBody: raw, payload: body.value });
  if (result instanceof Promise) {
    result.then((kind) => {
      decided(state, route.name, kind);
      answerAccepted(deps, reply);
    }, (error: Error) => reply.send(error));
    return;
  }
  decided(state, route.name, result.kind);
  wait(result.committed, reply);
}

function decided(state: RequestState, route: string, kind: AcceptKind): void {
  state.outcome = kind;
  // Built as text: the same JSON as the object, without the serializer's per-reply work.
  state.answer = kind === 'accepted'
    ? `{"status":"accepted","route":${JSON.stringify(route)},"event":${JSON.stringify(state.event)},"delivery_id":${JSON.stringify(state.deliveryId)}}`
    : `{"status":"duplicate","delivery_id":${JSON.stringify(state.deliveryId)}}`;
}

/** The 202 (or the duplicate's 200) once the accept is durable. */
function answerAccepted(deps: WebhookServerDeps, reply: FastifyReply): void {
  const state = reply.request.webhook!;
  reply.code(state.outcome === 'accepted' ? 202 : 200).type(JSON_TYPE).send(state.answer);
  recordOutcome(deps, reply);
}

/** `message` goes to the sender; `reason` (default: the message) to the log and the console. */
function refuse(deps: WebhookServerDeps, reply: FastifyReply, state: RequestState, outcome: RequestOutcome, status: number, error: string, message: string, reason?: string): void {
  state.outcome = outcome;
  state.reason = reason ?? message;
  reply.code(status).send(errorBody(error, message, state.route));
  recordOutcome(deps, reply);
}

function answerError(deps: WebhookServerDeps, error: Error & { code?: string; statusCode?: number }, request: FastifyRequest, reply: FastifyReply): void {
  const state = request.webhook;
  const route = state?.route;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    if (state) state.outcome = 'too_large';
    reply.code(413).send(errorBody('Payload too large', tooLargeMessage(route, deps.maxBodyBytes), route));
  } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    if (state) Object.assign(state, { outcome: 'bad_request', reason: error.message });
    reply.code(400).send(errorBody(`Bad request: ${error.message}`, `Route "${route}": the request was refused: ${error.message}`, route));
  } else if (error instanceof StoreUnavailableError) {
    // Nothing was accepted: the sender retries (GitHub and GitLab show the 503 and let one redeliver).
    if (state) Object.assign(state, { outcome: 'error', reason: error.message });
    reply.header('retry-after', String(error.retryAfterSeconds));
    reply.code(503).send(errorBody('Service unavailable', `Route "${route}": not accepted, ${error.message}; retry after ${error.retryAfterSeconds} s`, route));
  } else {
    if (state) Object.assign(state, { outcome: 'error', reason: error.message });
    request.log.error({ err: error, route }, 'Webhook request failed');
    reply.code(500).send(errorBody('Internal error', `Route "${route}": the listener failed on this request; see logs/gateway.log`, route));
  }
}

type CommitWaiters = (committed: Promise<void>, reply: FastifyReply) => void;

/**
 * Replies waiting on a commit, answered together when it settles: one callback per commit (the
 * accepts of an event-loop turn share one) instead of a promise chain per request. A failed commit
 * goes to each reply's error handler (503 when the store cannot write).
 */
function createCommitWaiters(answer: (reply: FastifyReply) => void): CommitWaiters {
  let current: { committed: Promise<void>; replies: FastifyReply[]; settled: boolean } | undefined;
  return (committed, reply) => {
    if (current && current.committed === committed && !current.settled) {
      current.replies.push(reply);
      return;
    }
    const batch = { committed, replies: [reply], settled: false };
    current = batch;
    committed.then(() => {
      batch.settled = true;
      for (const waiting of batch.replies) {
        try {
          answer(waiting);
        } catch (error) {
          waiting.send(error);
        }
      }
    }, (error: unknown) => {
      batch.settled = true;
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const waiting of batch.replies) waiting.send(failure);
    });
  };
}

/** The request's record, once its answer is sent (the same fields and order as always). */
function recordOutcome(deps: WebhookServerDeps, reply: FastifyReply): void {
  const state = reply.request.webhook;
  if (!state) return;
  const status = reply.statusCode;
  const outcome = state.outcome ?? outcomeOfStatus(status);
  const latencyMs = Math.round(reply.elapsedTime * 100) / 100;
  deps.onOutcome(state.reason
    ? { route: state.route, event: state.event, deliveryId: state.deliveryId, outcome, status, latencyMs, reason: state.reason, atMs: deps.now() }
    : { route: state.route, event: state.event, deliveryId: state.deliveryId, outcome, status, latencyMs, atMs: deps.now() });
}

function tooLargeMessage(route: string | undefined, maxBodyBytes: number): string {
  return `${route ? `Route "${route}": the` : 'The'} body is larger than ${maxBodyBytes} bytes (platforms.webhook.extra.max_body_bytes)`;
}

function outcomeOfStatus(status: number): RequestOutcome {
  if (status === 413) return 'too_large';
  if (status === 404) return 'unknown_route';
  return status >= 500 ? 'error' : 'bad_request';
}
