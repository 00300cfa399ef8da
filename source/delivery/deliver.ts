import { PER_DELIVERY } from '../infra/log-ring.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { homeLayout } from '../config/home.js';
import type { ConfigFile } from '../config/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import { ghPrComment } from '../infra/gh.js';
import type { OutputDeliveryBackend } from '../store/async-domains.js';
import type { OutputDeliveryStatus, SettledState } from '../store/output-deliveries.js';
import { defaultRetryPolicy, sendWithRetries, type AttemptOutcome, type AttemptRecord, type RetryPolicy } from './attempts.js';
import { discordSends } from './discord-target.js';
import { emailSends } from './email-target.js';
import { deliverToLocal } from './local-target.js';
import { deliverToLog, describeSubject } from './log-target.js';
import { platformSettings } from './platforms.js';
import { repeatableTarget } from './repeatable.js';
import { signalSends } from './signal-target.js';
import { slackSends } from './slack-target.js';
import { smsSends } from './sms-target.js';
import { checkGithubTarget, resolveTarget, type ResolvedTarget } from './targets.js';
import { telegramSends } from './telegram-target.js';
import type { Deliver, DeliveryRequest, DeliveryResult, RetryResult } from './types.js';

export interface DeliverDeps {
  homeRoot: string;
  logger: Logger;
  now?: () => number;
  /** Interpolated config, for the messaging platforms' settings. */
  config?: ConfigFile;
  /** Records every delivery and attempt (history, retries): the store's output deliveries, on any backend. */
  history?: OutputDeliveryBackend;
  retry?: Partial<RetryPolicy>;
  /** Environment for `gh` (tests put a fake gh first on PATH). */
  ghEnv?: NodeJS.ProcessEnv;
  sleep?: (ms: number) => Promise<void>;
  events?: Pick<GatewayEvents, 'emit'>;
  /**
   * `origin`: where the job or run came from. The gateway's handler shows the output in the Output
   * pane of its console or of the consoles attached to it; where none can (undefined, or no handler:
   * the CLI) the output is kept in a local file and the result says so.
   */
  origin?: (request: DeliveryRequest) => DeliveryResult | undefined;
  /**
   * Cluster mode: this node's id. A `log` or `local` output stays on this node's disk, so its
   * detail names the node (`written to gateway.log (node vm-1a2b3c4d)`): the operator reading
   * `webhook deliveries` on another node knows whose log or files to open.
   */
  node?: string;
  /**
   * After a retry that delivered: what the output was for learns it (the webhook delivery's state,
   * the job's last status). A failure here is logged; the output went out all the same.
   */
  afterRetry?: (subject: DeliveryRequest['subject'], detail: string) => Promise<void>;
}

/** A send's result with its parts; `once`: a send of one try that reported no attempt of its own (log, local, origin). */
type SendResult = DeliveryResult & { chunksTotal: number; chunksSent: number; once?: true };

const GH_TIMEOUT_MS = 30_000;

export interface DeliveryService {
  deliver: Deliver;
  /** Sends a recorded failed delivery again, from the first chunk that did not go out. */
  retry(id: string): Promise<RetryResult>;
  history: OutputDeliveryBackend | undefined;
  /**
   * Failed deliveries on record, read by the console's header on every frame, so from memory: read
   * from the store at start (`recoverInterrupted`, `loadFailedCount`), then kept up to date by this
   * process's sends and retries. Another node's changes reach it later (cluster step: LISTEN/NOTIFY).
   */
  failedCount(): number;
  /** Reads the failed count from the store into memory (a process that does not start the gateway). */
  loadFailedCount(): Promise<number>;
  /**
   * At start: what a previous process left `sending` becomes `uncertain` (targets that must not get it
   * twice) or `failed`; then the failed count is read. Undefined without a history.
   */
  recoverInterrupted(atMs: number): Promise<{ uncertain: number; failed: number } | undefined>;
}

/** Routes each output to its target, with retries for network targets and a record of every attempt. */
export function createDeliveryService(deps: DeliverDeps): DeliveryService {
  const now = deps.now ?? Date.now;
  const policy = { ...defaultRetryPolicy, ...deps.retry };
  const platforms = platformSettings(deps.config);
  const history = deps.history;
  let failed = 0;

  const onThisNode = (result: DeliveryResult): DeliveryResult => {
    if (!deps.node) return result;
    return result.ok ? { ...result, detail: `${result.detail} (node ${deps.node})` } : { ...result, reason: `${result.reason} (node ${deps.node})` };
  };

  async function send(request: DeliveryRequest, record: RecordedSend | undefined, fromChunk: number): Promise<SendResult> {
    const extra = request.extra ?? {};
    const resolved = resolveTarget(request.target, extra, platforms, { for: request.subject.kind === 'webhook' ? 'webhook' : 'job' });
    if (!resolved.ok) return { ok: false, reason: resolved.reason, chunksTotal: 0, chunksSent: 0 };
    const target = resolved.value;
    const report = (chunk: number) => (attempt: Omit<AttemptRecord, 'chunk'>) => { if (record && history) void record.writes.write(() => history.attempt(record.id, { ...attempt, chunk })); };
    switch (target.kind) {
      case 'log':
        return { ...onThisNode(deliverToLog(deps.logger, request)), chunksTotal: 1, chunksSent: 1, once: true };
      case 'local':
        return { ...onThisNode(await deliverToLocal(deps.homeRoot, request, now)), chunksTotal: 1, chunksSent: 1, once: true };
      case 'origin': {
        const shown = deps.origin?.(request);
        if (shown) return { ...shown, chunksTotal: 1, chunksSent: 1, once: true };
        const kept = onThisNode(await deliverToLocal(deps.homeRoot, request, now));
        return kept.ok
          ? { ok: true, detail: `no console is attached to show it; kept in ${kept.detail}`, chunksTotal: 1, chunksSent: 1, once: true }
          : { ...kept, chunksTotal: 1, chunksSent: 0, once: true };
      }
      case 'github_comment': {
        const checked = checkGithubTarget(extra);
        if (!checked.ok) return { ok: false, reason: checked.reason, chunksTotal: 0, chunksSent: 0 };
        const result = await ghPrComment({ ...checked.value, body: messageText(request), timeoutMs: GH_TIMEOUT_MS, env: deps.ghEnv, childrenDir: homeLayout(deps.homeRoot).childrenDir });
        report(0)({ attempt: 1, atMs: now(), ok: result.ok, status: null, error: result.ok ? null : result.reason });
        return result.ok
          ? { ok: true, detail: `commented on ${checked.value.repo}#${checked.value.prNumber}${result.output ? `: ${result.output}` : ''}`, chunksTotal: 1, chunksSent: 1 }
          : { ok: false, reason: result.reason, chunksTotal: 1, chunksSent: 0 };
      }
      default:
        return sendChunks(target, messageSends(target, request), fromChunk, report);
    }
  }

  async function sendChunks(target: ResolvedTarget, sends: Array<() => Promise<AttemptOutcome>>, fromChunk: number, report: (chunk: number) => (attempt: Omit<AttemptRecord, 'chunk'>) => void) {
    for (let chunk = fromChunk; chunk < sends.length; chunk++) {
      const outcome = await sendWithRetries(sends[chunk]!, policy, report(chunk), now, deps.sleep);
      if (!outcome.ok) {
        const part = sends.length > 1 ? ` (part ${chunk + 1} of ${sends.length})` : '';
        return { ok: false as const, reason: `${target.kind} to ${target.recipient}${part} failed: ${outcome.error}`, chunksTotal: sends.length, chunksSent: chunk };
      }
    }
    const parts = sends.length > 1 ? ` in ${sends.length} parts` : '';
    return { ok: true as const, detail: `sent to ${target.kind} ${target.recipient}${parts}`, chunksTotal: sends.length, chunksSent: sends.length };
  }

  async function run(request: DeliveryRequest, record: RecordedSend | undefined, fromChunk: number): Promise<DeliveryResult> {
    let result: SendResult;
    try {
      result = await send(request, record, fromChunk);
    } catch (error) {
      result = { ok: false, reason: `delivery to ${request.target} failed: ${(error as Error).message}`, chunksTotal: 0, chunksSent: 0 };
    }
    return conclude(request, record, result);
  }

  /** Records the outcome, logs it and tells the console. */
  async function conclude(request: DeliveryRequest, record: RecordedSend | undefined, result: SendResult): Promise<DeliveryResult> {
    const recordId = record?.id;
    if (record && history) {
      const status = result.ok ? 'delivered' : 'failed';
      // Never below zero: a row another writer failed is counted only from the next read of the store.
      failed = Math.max(0, failed + (status === 'failed' ? 1 : 0) - (record.was === 'failed' ? 1 : 0));
      const atMs = now();
      const state = { status, chunksTotal: result.chunksTotal, chunksSent: result.chunksSent, atMs, ...(result.ok ? { detail: result.detail } : { error: result.reason }) } as const;
      // A send of one try (a file, a log line) is an attempt as a network send's are: every record counts them alike.
      const attempt = result.once ? { chunk: 0, attempt: 1, atMs, ok: result.ok, status: null, error: result.ok ? null : result.reason } : undefined;
      const { writeOnce } = record;
      if (writeOnce && history.writesInOrder) {
        // A repeatable target's one row, on SQLite: written now on the one connection, so this
        // process reads it at once, and it commits with the caller's next write (a webhook's final
        // state) or before it. Waiting for its own commit cost a commit per run in the drain.
        writeOnce({ ...state, attempt }).catch(recordLost(deps.logger, record.id));
      } else {
        // A retry's attempt (the first send's goes in with its row), after the record's earlier writes.
        if (attempt && !writeOnce) void record.writes.write(() => history.attempt(record.id, attempt));
        // Settled on record before the outcome is reported, so whoever reads the history next sees it.
        await record.writes.write(() => (writeOnce ? writeOnce({ ...state, attempt }) : history.settle(record.id, state)));
      }
    }
    // A `log` delivery's own line is the record of it (log-target.ts): no second line saying so.
    if (result.ok && request.target !== 'log') deps.logger.info({ delivery: recordId, target: request.target, ...(request.subject.kind === 'webhook' ? PER_DELIVERY : {}) }, `Delivered ${describeSubject(request)} to ${request.target}: ${result.detail}`);
    else if (!result.ok) deps.logger.warn({ delivery: recordId, target: request.target }, `Delivery of ${describeSubject(request)} to ${request.target} failed: ${result.reason}`);
    const outcome: DeliveryResult = result.ok ? { ok: true, detail: result.detail, ...(recordId ? { recordId } : {}) } : { ok: false, reason: result.reason, ...(recordId ? { recordId } : {}) };
    deps.events?.emit('delivery.finished', { target: request.target, subject: request.subject, result: outcome, ...(record?.was ? { retry: true as const } : {}) });
    return outcome;
  }

  const loadFailedCount = async () => {
    failed = history ? await history.countFailed() : 0;
    return failed;
  };

  return {
    history,
    failedCount: () => failed,
    loadFailedCount,
    async recoverInterrupted(atMs) {
      if (!history) return undefined;
      const left = await history.recoverInterrupted(repeatableTarget, atMs);
      await loadFailedCount();
      return left;
    },
    async deliver(request) {
      if (!history) return run(request, undefined, 0);
      const id = randomUUID();
      const row = { id, target: request.target, extra: request.extra ?? {}, subject: request.subject, output: request.output, runFailed: request.failed === true, createdAtMs: now(), ...(request.held ? { held: request.held } : {}) };
      // Sent again after a crash at no cost (a log line, a file, the console): no `sending` row is
      // needed first, so the record is written once, with its outcome (one write instead of two).
      if (repeatableTarget(request.target)) return run(request, { id, writes: recordWrites(id, Promise.resolve(), deps.logger), writeOnce: (state) => history.create(row, state) }, 0);
      const recorded = history.create(row);
      // The attempt is on record before the side effect: after a crash it is known to be in doubt, not forgotten.
      const refused = await recorded.then(() => undefined, (error: unknown) => error as Error);
      // Sent without a record, a crash mid-send would leave no trace of a message that may have gone out.
      if (refused) return conclude(request, undefined, { ok: false, reason: `not sent to ${request.target}: its record could not be written first (${refused.message})`, chunksTotal: 0, chunksSent: 0 });
      return run(request, { id, writes: recordWrites(id, recorded, deps.logger) }, 0);
    },
    async retry(id) {
      const record = await history?.get(id);
      if (!record) return { ok: false, reason: `no delivery with id ${id}` };
      const delivered = { ok: true, detail: `${id} was already delivered`, recordId: id, alreadyDelivered: true } as const;
      if (record.status === 'delivered') return delivered;
      // Claimed first (committed): a retry already on its way, or the first send still in flight, is not sent twice.
      if (!(await history!.claimRetry(id, now()))) {
        if ((await history!.get(id))?.status === 'delivered') return delivered;
        return { ok: false, reason: `${id} is being sent now (its first send or another retry)`, recordId: id, busy: true };
      }
      const result = await run({ target: record.target, extra: record.extra, subject: record.subject, output: record.output, failed: record.runFailed }, { id, writes: recordWrites(id, Promise.resolve(), deps.logger), was: record.status }, record.chunksSent);
      if (result.ok && deps.afterRetry) {
        await deps.afterRetry(record.subject, result.detail).catch((error: unknown) =>
          deps.logger.warn({ err: error, delivery: id }, `Delivery ${id} was sent on retry, but recording that on ${describeSubject(record)} failed: ${(error as Error).message}`));
      }
      return result;
    },
  };
}

/** A send on record; `was`: the record's status before this send (a retry), for the failed count. */
interface RecordedSend {
  id: string;
  writes: RecordWrites;
  was?: OutputDeliveryStatus;
  /** A repeatable target's record, written once with the outcome (no row while it is sent). */
  writeOnce?: (state: SettledState) => Promise<void>;
}

interface RecordWrites {
  /** Runs `write` after the record's earlier writes; settles once it is done (or refused and logged). */
  write(write: () => Promise<void>): Promise<void>;
}

/** A write of a delivery's record that the store refused: logged; the send is not undone for it. */
function recordLost(logger: Logger, recordId: string) {
  return (error: unknown) => logger.warn({ err: error, delivery: recordId }, `Recording delivery ${recordId} failed: ${(error as Error).message}`);
}

/**
 * One record's writes, in order: its row before its attempts, the attempts before the outcome (on
 * PostgreSQL each is a round trip, and an attempt row needs its delivery row). A write the store
 * refuses is logged and the rest go on; the send is not undone for it, and a row left `sending` is
 * marked at the next start. Without its row (`first` refused) nothing more is written.
 */
function recordWrites(recordId: string, first: Promise<void>, logger: Logger): RecordWrites {
  const lost = recordLost(logger, recordId);
  const created = first.then(() => true, (error: unknown) => {
    lost(error);
    return false;
  });
  let chain: Promise<unknown> = created;
  return {
    write(write) {
      const next = chain.then(async () => { if (await created) await write(); }).catch(lost);
      chain = next;
      return next;
    },
  };
}

/** Compatible entry point: a plain Deliver function. */
export function createDeliver(deps: DeliverDeps): Deliver {
  return createDeliveryService(deps).deliver;
}

function messageSends(target: ResolvedTarget, request: DeliveryRequest): Array<() => Promise<AttemptOutcome>> {
  const text = messageText(request);
  switch (target.kind) {
    case 'telegram': return telegramSends(target, text);
    case 'discord': return discordSends(target, text);
    case 'slack': return slackSends(target, text);
    case 'signal': return signalSends(target, text);
    case 'sms': return smsSends(target, text);
    case 'email': return emailSends(target, text, `Switchboard: ${describeSubject(request)}${request.failed ? ' (run failed)' : ''}`);
    default: throw new Error(`no sender for ${target.kind}`);
  }
}

/** Chats refuse empty messages, and a failed run must say so. */
function messageText(request: DeliveryRequest): string {
  const body = request.output.trim() === '' ? '(no output)' : request.output;
  return request.failed ? `Run failed (${describeSubject(request)}):\n\n${body}` : body;
}
