import { PER_DELIVERY } from '../infra/log-ring.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { RunAgent } from '../agent/types.js';
import type { Deliver } from '../delivery/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { DeliveryBackend, SubscriptionBackend, SyncIntake } from '../store/async-domains.js';
import type { DeliveryRecord, DeliveryState, NewDelivery } from '../store/webhook-deliveries.js';
import { subscriptionRoute, type ResolvedRoute, type ResolvedWebhooks } from './config.js';
import { createBurstIntake } from './burst-intake.js';
import { openIntakeJournal } from './intake-journal.js';
import { createIntakeSummary } from './intake-summary.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { createRunQueue, type RunQueueDeps } from './run-queue.js';
import { buildWebhookServer, type AcceptKind, type AcceptResult, type IntakeInput, type WebhookServerDeps } from './server.js';
import { createTemplateCache, renderExtra, renderPrompt } from './template.js';
import { testRequest } from './test-request.js';
import type { WebhookRequestRecord } from './types.js';

export interface WebhookPlatformDeps {
  settings: ResolvedWebhooks;
  deliveries: DeliveryBackend;
  subscriptions: SubscriptionBackend;
  /** SQLite's synchronous accept (the intake's fast path); without it every accept waits on `deliveries`. */
  intake?: SyncIntake;
  /** With `intake`: the intake journal's file (burst-intake.ts); without it every accept goes to state.db. */
  journalFile?: string;
  /** Rate limits shared by the nodes of a cluster; default: this process's window, in memory. */
  rateLimiter?: RateLimiter;
  logger: Logger;
  runAgent: RunAgent;
  deliver: Deliver;
  events?: Pick<GatewayEvents, 'emit'>;
  now: () => number;
  pollMs?: number;
  earlierSend?: RunQueueDeps['earlierSend'];
  /** What GET /health answers (from memory: never blocked by the store). */
  health?: WebhookServerDeps['health'];
  /** GET /metrics, when `platforms.webhook.extra.metrics` is on. */
  metrics?: WebhookServerDeps['metrics'];
}

export type CommandResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface WebhookTestResult {
  status: number;
  body: unknown;
  deliveryId: string;
}

/** The webhook platform: HTTP intake, the durable run queue and the commands the console uses. */
export function createWebhookPlatform(deps: WebhookPlatformDeps) {
  const { settings, logger, now } = deps;
  const { deliveries, subscriptions, intake } = deps;
  const rateLimiter = deps.rateLimiter ?? createRateLimiter(now);
  // SQLite: accepts into state.db, or into the intake journal while a burst lasts (burst-intake.ts).
  const burst = intake ? createBurstIntake({ intake, logger, dedupWindowMs: settings.idempotencyTtlMs, now, onMoved: () => queue.wake() }) : undefined;
  // The run queue takes journal deliveries when state.db has none queued (a burst still arriving).
  const queued: DeliveryBackend = burst ? {
    ...deliveries,
    async claimQueued(nowMs, limit) {
      const rows = await deliveries.claimQueued(nowMs, limit);
      return rows.length > 0 || !burst.feedQueue(Math.max(limit, 16)) ? rows : deliveries.claimQueued(nowMs, limit);
    },
  } : deliveries;
  const queue = createRunQueue({ deliveries: queued, runAgent: deps.runAgent, deliver: deps.deliver, maxConcurrentRuns: settings.maxConcurrentRuns, logger, events: deps.events, now, pollMs: deps.pollMs, earlierSend: deps.earlierSend, ...(burst ? { bursting: burst.bursting } : {}) });

  // Static routes change when the console applies a config change (config commands); listener settings do not.
  let staticRoutes = settings.routes;
  const findRoute = (name: string): ResolvedRoute | undefined | Promise<ResolvedRoute | undefined> => {
    const fixed = staticRoutes.get(name);
    if (fixed) return fixed;
    return subscriptions.get(name).then((subscription) => subscription ? subscriptionRoute(subscription, settings) : undefined);
  };
  // Subscription names for the console's frames (read synchronously): refreshed when this gateway
  // changes one and every few seconds for changes made elsewhere (another node, the CLI on the store).
  let subscriptionNames: string[] = [];
  const refreshNames = async (): Promise<void> => {
    subscriptionNames = (await subscriptions.list()).map((s) => s.name);
  };
  let namesTimer: NodeJS.Timeout | undefined;

  const compiled = createTemplateCache();
  const notifyQueue = () => queue.notify();
  /** The commit the queue was last told to wait for: one notify per commit, not per accept. */
  let notifyAfter: Promise<void> | undefined;
  const rowOf = (input: IntakeInput): NewDelivery => ({
    route: input.route.name,
    deliveryId: input.deliveryId,
    event: input.event,
    headers: input.headers,
    body: input.rawBody,
    prompt: renderPrompt(input.route.prompt === undefined ? undefined : compiled(input.route.prompt), input.payload),
    skills: input.route.skills,
    target: input.route.deliver,
    targetExtra: renderExtra(input.route.deliverExtra, input.payload),
    receivedAtMs: now(),
  });
  const acceptLater = async (input: IntakeInput): Promise<AcceptKind> => {
    const row = rowOf(input);
    const dedupWindowMs = input.dedup ? settings.idempotencyTtlMs : undefined;
    // A free slot and nothing queued: the accept claims it for this node in the same statement.
    const slot = deliveries.acceptClaimed ? queue.reserve() : undefined;
    if (slot) {
      const outcome = await deliveries.acceptClaimed!(row, dedupWindowMs, slot.startedAtMs).catch((error: unknown) => {
        queue.settleReserved(undefined);
        throw error;
      });
      queue.settleReserved(outcome.kind === 'accepted' ? outcome.record : undefined);
      if (outcome.kind === 'accepted' && !outcome.record) queue.notify(); // queued behind others: the claim takes the oldest
      return outcome.kind;
    }
    const outcome = await deliveries.accept(row, dedupWindowMs);
    if (outcome.kind === 'accepted') queue.notify();
    return outcome.kind;
  };
  const accept = (input: IntakeInput): AcceptResult | Promise<AcceptKind> => {
    if (!intake) return acceptLater(input);
    const result = burst!.accept(rowOf(input), input.dedup ? settings.idempotencyTtlMs : undefined);
    const { committed } = result;
    if (result.kind === 'accepted' && notifyAfter !== committed) {
      notifyAfter = committed;
      committed.then(notifyQueue, () => undefined); // a failed commit is answered by the server (503)
    }
    return result;
  };

  const summary = createIntakeSummary({ logger, now });
  const onOutcome = (record: WebhookRequestRecord): void => {
    const routine = record.outcome === 'accepted' || record.outcome === 'duplicate';
    // Accepted and duplicate requests are summed up per route at info (intake-summary.ts); each one
    // is a debug line, built only when debug is on. Refusals and errors keep a line each.
    if (routine) summary.count(record.route, record.outcome as 'accepted' | 'duplicate');
    if (record.outcome === 'ignored' || routine) {
      // The connectivity ping (and any ignored event) is routine: debug only (spec 4.1 rule 2).
      if (logger.isLevelEnabled('debug')) logger.debug(routine ? { ...fieldsOf(record), ...PER_DELIVERY } : fieldsOf(record), lineOf(record));
    } else if (record.status === 503) logger.warn(fieldsOf(record), lineOf(record)); // the store's fault is logged once where it starts
    else if (record.status >= 500) logger.error(fieldsOf(record), lineOf(record));
    else logger.info(fieldsOf(record), lineOf(record));
    deps.events?.emit('webhook.received', record);
  };

  const app: FastifyInstance = buildWebhookServer({ logger, maxBodyBytes: settings.maxBodyBytes, now, findRoute, rateLimiter, accept, onOutcome, ...(deps.health ? { health: deps.health } : {}), ...(deps.metrics ? { metrics: deps.metrics } : {}) });
  app.addHook('onClose', async () => summary.close());

  return {
    app,
    queue,
    findRoute,
    staticRoute: (name: string): ResolvedRoute | undefined => staticRoutes.get(name),
    /** Loads the subscription names and keeps them fresh (every 5 s) until stop(). */
    async start(): Promise<void> {
      const recovered = burst && deps.journalFile ? await burst.open(openIntakeJournal(deps.journalFile)) : 0;
      if (recovered) logger.warn(`${recovered} webhook(s) accepted before the gateway stopped were still in the intake journal: queued now`);
      await refreshNames();
      namesTimer = setInterval(() => void refreshNames().catch(() => {}), 5_000);
      namesTimer.unref();
    },
    /** After the listener closed: what the intake journal holds goes into state.db. */
    async stop(): Promise<void> {
      clearInterval(namesTimer);
      await burst?.stop();
    },
    /** After this gateway subscribed or unsubscribed: the names the console shows follow at once. */
    subscriptionsChanged: refreshNames,
    /** Static route names and subscription names (a static route hides a subscription of its name); from memory. */
    routeNames(): { static: string[]; subscriptions: string[] } {
      return { static: [...staticRoutes.keys()], subscriptions: subscriptionNames.filter((name) => !staticRoutes.has(name)) };
    },
    /** Serves a new set of static routes from the next request on (requests in flight keep the route they found). */
    replaceRoutes(next: Map<string, ResolvedRoute>): { added: string[]; changed: string[]; removed: string[] } {
      const before = staticRoutes;
      staticRoutes = next;
      return {
        added: [...next.keys()].filter((name) => !before.has(name)),
        changed: [...next.keys()].filter((name) => before.has(name) && JSON.stringify(before.get(name)) !== JSON.stringify(next.get(name))),
        removed: [...before.keys()].filter((name) => !next.has(name)),
      };
    },
    /** The subscription store, for the subscribe commands (source/webhooks/subscribe.ts). */
    subscriptions,
    /** Deliveries by state; those still in the intake journal count as queued. */
    async counts(): Promise<Record<DeliveryState, number>> {
      const counts = await deliveries.counts();
      return burst && burst.waiting() > 0 ? { ...counts, queued: counts.queued + burst.waiting() } : counts;
    },
    /** Accepted deliveries, newest first, with their run state and delivery outcome. */
    async recent(options: { route?: string; limit?: number }): Promise<DeliveryRecord[]> {
      await burst?.catchUp(); // a list shows what a burst left in the intake journal too
      return deliveries.recent(options);
    },
    /** The latest recorded delivery with this id (the console's details view; one still in the intake journal is moved first). */
    async find(deliveryId: string): Promise<DeliveryRecord | undefined> {
      await burst?.catchUp();
      return deliveries.findByDeliveryId(deliveryId);
    },
    /** The first secret of a route, for the console's copy after a confirm (never logged). */
    async secretFor(routeName: string): Promise<CommandResult<string>> {
      const route = await findRoute(routeName);
      if (!route) return { ok: false, reason: `Unknown webhook route "${routeName}"` };
      const secret = route.secrets[0];
      return secret === undefined ? { ok: false, reason: `Route "${routeName}" has no secret (INSECURE_NO_AUTH)` } : { ok: true, value: secret };
    },
    /** Runs a recorded delivery again, as a new delivery marked as a replay of it. */
    async replay(deliveryId: string): Promise<CommandResult<DeliveryRecord>> {
      // What a burst left in the intake journal first: the original may be there, and the replay queues after it all.
      await burst?.catchUp();
      const original = await deliveries.findByDeliveryId(deliveryId);
      if (!original) return { ok: false, reason: `No recorded webhook delivery "${deliveryId}"; see switchboard webhook deliveries` };
      const copy = await deliveries.enqueueReplay(original, now());
      logger.info({ route: copy.route, deliveryId: copy.deliveryId, replayOf: deliveryId }, `Webhook replay queued: ${copy.deliveryId}`);
      queue.notify();
      return { ok: true, value: copy };
    },
    /** Sends a signed test request through the whole intake (inject(), no socket). */
    async test(routeName: string, input: { event?: string; payload?: Record<string, unknown> } = {}): Promise<CommandResult<WebhookTestResult>> {
      const route = await findRoute(routeName);
      if (!route) return { ok: false, reason: `Unknown webhook route "${routeName}": not in platforms.webhook.extra.routes and no subscription of that name` };
      const request = testRequest(route.secrets[0], input.event, input.payload, now());
      const response = await app.inject({ method: 'POST', url: `/webhooks/${encodeURIComponent(route.name)}`, headers: request.headers, payload: request.body });
      let body: unknown = response.body;
      try {
        body = response.json();
      } catch {
        // not JSON: keep the text
      }
      return { ok: true, value: { status: response.statusCode, body, deliveryId: request.deliveryId } };
    },
  };
}

export type WebhookPlatform = ReturnType<typeof createWebhookPlatform>;

function lineOf(record: WebhookRequestRecord): string {
  return `webhook ${record.route} event=${record.event} delivery=${record.deliveryId} -> ${record.outcome} ${record.status} ${record.latencyMs}ms`;
}

function fieldsOf(record: WebhookRequestRecord) {
  return { route: record.route, event: record.event, deliveryId: record.deliveryId, outcome: record.outcome, status: record.status, latencyMs: record.latencyMs, reason: record.reason };
}
