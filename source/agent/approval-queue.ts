import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { maskSecrets } from '../config/mask.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { ApprovalRecord } from '../store/approvals.js';
import type { ApprovalBackend } from '../store/async-domains.js';
import { truncateMiddle } from './truncate.js';
import { ApprovalTimeout, type ApprovalInput, type ApprovalOutcome, type ApprovalRequester } from './types.js';
import { repeatedFailure } from '../infra/repeated-failure.js';

/**
 * `interactive`: an operator console decides. `wait`: pending until `switchboard approvals`
 * decides or it expires. `deny`: nobody is watching, so refuse at once (recorded all the same).
 */
export type ApprovalPolicy = 'interactive' | 'wait' | 'deny';

export interface ApprovalQueueDeps {
  /** Where requests and decisions are recorded: the store decides which decision wins (the first). */
  approvals: ApprovalBackend;
  logger: Logger;
  /** A function when it changes while the gateway runs (a headless gateway with a console attached waits for it). */
  policy: ApprovalPolicy | (() => ApprovalPolicy);
  timeoutMs: number;
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
  /** How often decisions written by other processes are picked up. */
  pollIntervalMs?: number;
  /**
   * Cluster mode: how often the requests other nodes wait for are read, so that a console attached
   * to this node lists them (and can decide them) too. Off when absent. With `announce`, requests
   * and decisions arrive at once through `heard`; this read and `pollIntervalMs` are only the safety
   * net for a notification lost while the channel between the nodes was reconnecting.
   */
  othersEveryMs?: number;
  /** Cluster mode: tells the other nodes that a request was recorded or decided here (they call `heard`). */
  announce?: (id: string) => void;
}

const PREVIEW_BYTES = 4 * 1024;

export interface ApprovalQueue extends ApprovalRequester {
  /** Decide from this process (the console). False when it was no longer pending. */
  resolve(id: string, decision: 'approved' | 'denied', details?: { reason?: string; values?: Record<string, unknown>; by?: string }): Promise<boolean>;
  /**
   * The requests this process made and is waiting for, oldest first, from memory: the console and
   * the snapshot read it on every frame. In cluster mode (`othersEveryMs`) the requests other nodes
   * wait for follow them, as read at the last look; otherwise requests of other processes are not in
   * it. A decision made elsewhere leaves it when the poller sees it.
   */
  pending(): ApprovalRecord[];
  /** Every pending request in the store, whichever process or node made it, oldest first. */
  pendingInStore(): Promise<ApprovalRecord[]>;
  /** Recent requests in every state, newest first. */
  recent(limit: number): Promise<ApprovalRecord[]>;
  /** By id or its first characters. */
  find(ref: string): Promise<ApprovalRecord | 'ambiguous' | undefined>;
  /**
   * The console's "approve this tool for the session": this request and later calls to the same tool
   * (and server) pass at once, recorded as approved by the session rule; requests of that tool
   * already waiting are released too. Returns how many were released besides this one, or false
   * when the request was no longer pending.
   */
  approveForSession(id: string, by?: string): Promise<false | { released: number }>;
  /** The session grants in effect (until the gateway stops). */
  grants(): SessionGrant[];
  /** Ends a session grant; false when there was none. Later calls of that tool ask again. */
  revokeGrant(grant: SessionGrant): boolean;
  /** Shutdown: every waiting request ends as cancelled. */
  cancelAll(reason: string): Promise<void>;
  /**
   * Cluster mode: another node recorded or decided request `id` (a notification). It is read from
   * the store: a new request joins `pending()`, a decided one leaves it and wakes the run waiting here.
   */
  heard(id: string): Promise<void>;
}

/** A tool (of a server, for MCP tools) approved for the rest of the session. */
export interface SessionGrant {
  tool: string;
  server: string | null;
}

type Decision = 'approved' | 'denied' | 'expired' | 'cancelled';
type Details = { reason?: string; values?: Record<string, unknown>; by: string };

export function createApprovalQueue(deps: ApprovalQueueDeps): ApprovalQueue {
  const now = deps.now ?? Date.now;
  const records = deps.approvals;
  // This process's requests still waiting (pending()), in the order they were recorded.
  const mine = new Map<string, ApprovalRecord>();
  // Cluster mode: requests other nodes wait for, and the ids made here (before `mine` knows them).
  const others = new Map<string, ApprovalRecord>();
  const madeHere = new Set<string>();
  let pendingList: ApprovalRecord[] = [];
  const listPending = () => { pendingList = [...mine.values(), ...others.values()]; };
  const waiting = new Map<string, { settle: (record: ApprovalRecord) => void; drop: () => void }>();
  // Decisions of this process still in flight: the poller leaves their requests alone.
  const deciding = new Map<string, number>();
  const sessionRules = new Map<string, SessionGrant>();
  const grantsChanged = () => deps.events?.emit('approval.grantsChanged', { grants: [...sessionRules.values()] });
  const ruleKey = (tool: string, server: string | null | undefined) => `${server ?? ''}\u0000${tool}`;
  const forget = (id: string) => {
    madeHere.delete(id);
    if (mine.delete(id) || others.delete(id)) listPending();
  };
  let poller: NodeJS.Timeout | undefined;
  let polling = false;

  /** A decided request: told to this process's listeners when decided here or when one of its runs waits for it. */
  const concluded = (record: ApprovalRecord, madeHere: boolean) => {
    forget(record.id);
    if (madeHere || waiting.has(record.id)) deps.events?.emit('approval.resolved', record);
    waiting.get(record.id)?.settle(record);
  };

  async function decide(id: string, status: Decision, details: Details): Promise<{ made: boolean; record: ApprovalRecord | undefined }> {
    deciding.set(id, (deciding.get(id) ?? 0) + 1);
    try {
      const made = await records.decide(id, status, { ...details, atMs: now() });
      const record = await records.get(id);
      if (made) deps.announce?.(id);
      if (made && record) deps.logger.info({ approval: id, tool: record.tool, origin: record.origin, status, by: details.by }, `Tool call ${record.tool} ${status}${details.by ? ` by ${details.by}` : ''} (run: ${record.origin})`);
      if (record && record.status !== 'pending') concluded(record, made);
      return { made, record };
    } finally {
      const left = (deciding.get(id) ?? 1) - 1;
      if (left > 0) deciding.set(id, left);
      else deciding.delete(id);
    }
  }

  /** Expiry and cancellation: when the store cannot record them, the request ends so all the same (never granted). */
  async function close(id: string, status: 'expired' | 'cancelled', details: Details): Promise<void> {
    try {
      await decide(id, status, details);
    } catch (error) {
      deps.logger.error({ err: error, approval: id }, `Recording approval ${id} as ${status} failed; it ends ${status} all the same`);
      const record = mine.get(id);
      if (record) concluded({ ...record, status, decisionReason: details.reason ?? null, decidedBy: details.by, decidedAtMs: now() }, true);
    }
  }

  const decisionFailures = repeatedFailure(deps.logger, 'Reading approval decisions from the store');
  /** Decisions made by other processes, and expiries this process missed. */
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      for (const id of [...waiting.keys()]) {
        if (deciding.has(id)) continue;
        const record = await records.get(id);
        if (!record || !waiting.has(id) || deciding.has(id)) continue;
        if (record.status !== 'pending') concluded(record, false);
        else if (now() >= record.expiresAtMs) await close(id, 'expired', { reason: 'no decision before the approval timeout', by: 'timeout' });
      }
      decisionFailures.worked();
    } catch (error) {
      decisionFailures.failed(error);
    } finally {
      polling = false;
    }
  };
  const ensurePolling = () => {
    if (poller || waiting.size === 0) return;
    poller = setInterval(() => void poll(), deps.pollIntervalMs ?? 250);
    poller.unref();
  };
  const stopPollingIfIdle = () => {
    if (poller && waiting.size === 0) {
      clearInterval(poller);
      poller = undefined;
    }
  };

  /** Waits for the recorded request's decision; expiry and the run's signal end it too. */
  function awaitDecision(id: string, signal: AbortSignal | undefined): { decided: Promise<ApprovalRecord>; onAbort: () => Promise<void> } {
    const onAbort = () => {
      const reason: unknown = signal?.reason;
      return reason instanceof ApprovalTimeout
        ? close(id, 'expired', { reason: reason.message, by: 'timeout' })
        : close(id, 'cancelled', { reason: 'the run was cancelled', by: 'run' });
    };
    const listener = () => void onAbort();
    const decided = new Promise<ApprovalRecord>((resolve) => {
      const expiry = setTimeout(() => void close(id, 'expired', { reason: 'no decision before the approval timeout', by: 'timeout' }), deps.timeoutMs);
      signal?.addEventListener('abort', listener, { once: true });
      const drop = () => {
        clearTimeout(expiry);
        signal?.removeEventListener('abort', listener);
        waiting.delete(id);
        forget(id);
        stopPollingIfIdle();
      };
      waiting.set(id, { drop, settle: (settled) => { drop(); resolve(settled); } });
    });
    return { decided, onAbort };
  }

  async function request(input: ApprovalInput, signal?: AbortSignal): Promise<ApprovalOutcome> {
    let id: string | undefined;
    try {
      id = randomUUID();
      madeHere.add(id);
      const createdAtMs = now();
      await records.insert({
        id, origin: input.origin, tool: input.tool, server: input.server ?? null,
        argsPreview: truncateMiddle(JSON.stringify(maskSecrets(input.args) ?? null, undefined, 2), PREVIEW_BYTES),
        annotations: input.annotations ?? null, reason: input.reason ?? null, form: input.form ?? null,
        createdAtMs, expiresAtMs: createdAtMs + deps.timeoutMs,
      });
      const record = await records.get(id);
      if (!record) throw new Error(`approval ${id} was not found right after it was recorded`);
      mine.set(id, record);
      listPending();
      const { decided, onAbort } = awaitDecision(id, signal);
      deps.logger.info({ approval: id, tool: input.tool, origin: input.origin }, `Approval requested: ${input.tool} (${input.origin})`);
      deps.events?.emit('approval.requested', record);
      deps.announce?.(id);
      if (!input.form && sessionRules.has(ruleKey(input.tool, input.server ?? null))) {
        await decide(id, 'approved', { reason: 'approved for this session', by: 'session' });
      } else if ((typeof deps.policy === 'function' ? deps.policy() : deps.policy) === 'deny') {
        await decide(id, 'denied', { reason: 'no operator console is attached (approvals.headless is "deny")', by: 'policy' });
      } else if (signal?.aborted) {
        await onAbort();
      } else {
        ensurePolling();
      }
      return outcomeOf(await decided);
    } catch (error) {
      // A failing approval path never grants permission.
      deps.logger.error({ err: error, approval: id }, 'Approval request failed; treating it as denied');
      if (id) waiting.get(id)?.drop();
      if (id) forget(id);
      return { status: 'denied', reason: `the approval request failed: ${(error as Error).message}` };
    }
  }

  /** Cluster mode: one request another node recorded or decided, as the store has it now. */
  const lookAt = async (id: string) => {
    const record = await records.get(id);
    if (!record) return;
    if (record.status === 'pending') {
      if (madeHere.has(id) || mine.has(id) || others.has(id)) return;
      others.set(id, record);
      listPending();
      deps.events?.emit('approval.requested', record);
    } else if (waiting.has(id)) {
      if (!deciding.has(id)) concluded(record, false); // the run waiting here goes on now
    } else if (others.delete(id)) {
      listPending();
      deps.events?.emit('approval.resolved', record);
    }
  };
  /** Cluster mode: the requests other nodes wait for come and go as events, as this node's own do. */
  const lookAtOthers = async () => {
    const stored = await records.pending();
    const still = new Set(stored.map((record) => record.id));
    for (const record of stored) {
      if (madeHere.has(record.id) || mine.has(record.id) || others.has(record.id)) continue;
      others.set(record.id, record);
      listPending();
      deps.events?.emit('approval.requested', record);
    }
    for (const id of [...others.keys()]) {
      if (still.has(id)) continue;
      others.delete(id);
      listPending();
      const record = await records.get(id);
      if (record && record.status !== 'pending') deps.events?.emit('approval.resolved', record);
    }
  };
  // One look at a time, in the order asked: a late answer to an earlier read cannot bring back a
  // request that a later notification saw decided.
  let looks = Promise.resolve();
  const lookFailures = repeatedFailure(deps.logger, 'Reading the approval requests of other nodes');
  const serially = (look: () => Promise<void>) => {
    const next = looks.then(look).then(() => lookFailures.worked(), (error: unknown) => lookFailures.failed(error));
    looks = next;
    return next;
  };
  let looking = false;
  const othersTimer = deps.othersEveryMs === undefined ? undefined : setInterval(() => {
    if (looking) return;
    looking = true;
    void serially(lookAtOthers).finally(() => { looking = false; });
  }, deps.othersEveryMs);
  othersTimer?.unref();

  return {
    request,
    resolve: async (id, decision, details = {}) => (await decide(id, decision, { ...details, by: details.by ?? 'console' })).made,
    pending: () => pendingList,
    pendingInStore: () => records.pending(),
    recent: (limit) => records.recent(limit),
    find: (ref) => records.find(ref),
    async approveForSession(id, by = 'console') {
      const record = await records.get(id);
      if (!record || record.form) return false;
      const key = ruleKey(record.tool, record.server);
      if (!(await decide(id, 'approved', { reason: 'approved for this session', by })).made) return false;
      sessionRules.set(key, { tool: record.tool, server: record.server });
      grantsChanged();
      let released = 0;
      for (const other of await records.pending()) {
        if (other.form || ruleKey(other.tool, other.server) !== key) continue;
        if ((await decide(other.id, 'approved', { reason: 'approved for this session', by: 'session' })).made) released += 1;
      }
      return { released };
    },
    grants: () => [...sessionRules.values()],
    revokeGrant(grant) {
      const removed = sessionRules.delete(ruleKey(grant.tool, grant.server));
      if (removed) grantsChanged();
      return removed;
    },
    heard: (id) => serially(() => lookAt(id)),
    async cancelAll(reason) {
      clearInterval(othersTimer);
      await Promise.all([...waiting.keys()].map((id) => close(id, 'cancelled', { reason, by: 'shutdown' })));
      stopPollingIfIdle();
    },
  };
}

function outcomeOf(record: ApprovalRecord): ApprovalOutcome {
  if (record.status === 'approved') return record.values ? { status: 'approved', values: record.values } : { status: 'approved' };
  if (record.status === 'pending') return { status: 'denied', reason: 'still pending' };
  return { status: record.status, ...(record.decisionReason ? { reason: record.decisionReason } : {}), ...(record.decidedBy ? { by: record.decidedBy } : {}) };
}
