import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { maskSecrets } from '../config/mask.js';
import type { GatewayEvents } from '../gateway/events.js';
import { createApprovalStore, type ApprovalRecord } from '../store/approvals.js';
import type { Store } from '../store/database.js';
import { truncateMiddle } from './truncate.js';
import { ApprovalTimeout, type ApprovalInput, type ApprovalOutcome, type ApprovalRequester } from './types.js';

/**
 * `interactive`: an operator console decides. `wait`: pending until `switchboard approvals`
 * decides or it expires. `deny`: nobody is watching, so refuse at once (recorded all the same).
 */
export type ApprovalPolicy = 'interactive' | 'wait' | 'deny';

export interface ApprovalQueueDeps {
  store: Store;
  logger: Logger;
  /** A function when it changes while the gateway runs (a headless gateway with a console attached waits for it). */
  policy: ApprovalPolicy | (() => ApprovalPolicy);
  timeoutMs: number;
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
  /** How often decisions written by other processes are picked up. */
  pollIntervalMs?: number;
}

const PREVIEW_BYTES = 4 * 1024;

export interface ApprovalQueue extends ApprovalRequester {
  /** Decide from this process (the console). False when it was no longer pending. */
  resolve(id: string, decision: 'approved' | 'denied', details?: { reason?: string; values?: Record<string, unknown>; by?: string }): boolean;
  pending(): ApprovalRecord[];
  /** Recent requests in every state, newest first. */
  recent(limit: number): ApprovalRecord[];
  /** By id or its first characters. */
  find(ref: string): ApprovalRecord | 'ambiguous' | undefined;
  /**
   * The console's "approve this tool for the session": this request and later calls to the same tool
   * (and server) pass at once, recorded as approved by the session rule; requests of that tool
   * already waiting are released too. Returns how many were released besides this one, or false
   * when the request was no longer pending.
   */
  approveForSession(id: string, by?: string): false | { released: number };
  /** The session grants in effect (until the gateway stops). */
  grants(): SessionGrant[];
  /** Ends a session grant; false when there was none. Later calls of that tool ask again. */
  revokeGrant(grant: SessionGrant): boolean;
  /** Shutdown: every waiting request ends as cancelled. */
  cancelAll(reason: string): void;
}

/** A tool (of a server, for MCP tools) approved for the rest of the session. */
export interface SessionGrant {
  tool: string;
  server: string | null;
}

export function createApprovalQueue(deps: ApprovalQueueDeps): ApprovalQueue {
  const now = deps.now ?? Date.now;
  const records = createApprovalStore(deps.store);
  const waiting = new Map<string, { settle: (record: ApprovalRecord) => void }>();
  const sessionRules = new Map<string, SessionGrant>();
  const grantsChanged = () => deps.events?.emit('approval.grantsChanged', { grants: [...sessionRules.values()] });
  const ruleKey = (tool: string, server: string | null | undefined) => `${server ?? ''}\u0000${tool}`;
  let poller: NodeJS.Timeout | undefined;

  const poll = () => {
    for (const [id, waiter] of waiting) {
      const record = records.get(id);
      if (!record) continue;
      if (record.status !== 'pending') waiter.settle(record);
      else if (now() >= record.expiresAtMs) decide(id, 'expired', { reason: 'no decision before the approval timeout', by: 'timeout' });
    }
  };
  const ensurePolling = () => {
    if (poller || waiting.size === 0) return;
    poller = setInterval(poll, deps.pollIntervalMs ?? 250);
    poller.unref();
  };
  const stopPollingIfIdle = () => {
    if (poller && waiting.size === 0) {
      clearInterval(poller);
      poller = undefined;
    }
  };

  function decide(id: string, status: 'approved' | 'denied' | 'expired' | 'cancelled', details: { reason?: string; values?: Record<string, unknown>; by: string }): boolean {
    const made = records.decide(id, status, { ...details, atMs: now() });
    const record = records.get(id);
    if (made && record) {
      deps.logger.info({ approval: id, tool: record.tool, origin: record.origin, status, by: details.by }, `Approval ${status}: ${record.tool} (${record.origin})`);
      deps.events?.emit('approval.resolved', record);
    }
    if (record && record.status !== 'pending') waiting.get(id)?.settle(record);
    return made;
  }

  async function request(input: ApprovalInput, signal?: AbortSignal): Promise<ApprovalOutcome> {
    let id: string | undefined;
    try {
      id = randomUUID();
      const createdAtMs = now();
      records.insert({
        id, origin: input.origin, tool: input.tool, server: input.server ?? null,
        argsPreview: truncateMiddle(JSON.stringify(maskSecrets(input.args) ?? null, undefined, 2), PREVIEW_BYTES),
        annotations: input.annotations ?? null, reason: input.reason ?? null, form: input.form ?? null,
        createdAtMs, expiresAtMs: createdAtMs + deps.timeoutMs,
      });
      const record = records.get(id)!;
      deps.logger.info({ approval: id, tool: input.tool, origin: input.origin }, `Approval requested: ${input.tool} (${input.origin})`);
      deps.events?.emit('approval.requested', record);
      if (!input.form && sessionRules.has(ruleKey(input.tool, input.server ?? null))) {
        decide(id, 'approved', { reason: 'approved for this session', by: 'session' });
        return outcomeOf(records.get(id)!);
      }
      if ((typeof deps.policy === 'function' ? deps.policy() : deps.policy) === 'deny') {
        decide(id, 'denied', { reason: 'no operator console is attached (approvals.headless is "deny")', by: 'policy' });
        return outcomeOf(records.get(id)!);
      }
      const requestId = id;
      const onAbort = () => {
        const reason: unknown = signal?.reason;
        if (reason instanceof ApprovalTimeout) decide(requestId, 'expired', { reason: reason.message, by: 'timeout' });
        else decide(requestId, 'cancelled', { reason: 'the run was cancelled', by: 'run' });
      };
      if (signal?.aborted) {
        onAbort();
        return outcomeOf(records.get(id)!);
      }
      const decided = await new Promise<ApprovalRecord>((resolve) => {
        const expiry = setTimeout(() => decide(requestId, 'expired', { reason: 'no decision before the approval timeout', by: 'timeout' }), deps.timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.set(requestId, {
          settle: (settled) => {
            clearTimeout(expiry);
            signal?.removeEventListener('abort', onAbort);
            waiting.delete(requestId);
            stopPollingIfIdle();
            resolve(settled);
          },
        });
        ensurePolling();
      });
      return outcomeOf(decided);
    } catch (error) {
      // A failing approval path never grants permission.
      deps.logger.error({ err: error, approval: id }, 'Approval request failed; treating it as denied');
      if (id) waiting.delete(id);
      return { status: 'denied', reason: `the approval request failed: ${(error as Error).message}` };
    }
  }

  return {
    request,
    resolve: (id, decision, details = {}) => decide(id, decision, { ...details, by: details.by ?? 'console' }),
    pending: () => records.pending(),
    recent: (limit) => records.recent(limit),
    find: (ref) => records.find(ref),
    approveForSession(id, by = 'console') {
      const record = records.get(id);
      if (!record || record.form) return false;
      const key = ruleKey(record.tool, record.server);
      if (!decide(id, 'approved', { reason: 'approved for this session', by })) return false;
      sessionRules.set(key, { tool: record.tool, server: record.server });
      grantsChanged();
      let released = 0;
      for (const other of records.pending()) {
        if (other.form || ruleKey(other.tool, other.server) !== key) continue;
        if (decide(other.id, 'approved', { reason: 'approved for this session', by: 'session' })) released += 1;
      }
      return { released };
    },
    grants: () => [...sessionRules.values()],
    revokeGrant(grant) {
      const removed = sessionRules.delete(ruleKey(grant.tool, grant.server));
      if (removed) grantsChanged();
      return removed;
    },
    cancelAll(reason) {
      for (const id of [...waiting.keys()]) decide(id, 'cancelled', { reason, by: 'shutdown' });
      stopPollingIfIdle();
    },
  };
}

function outcomeOf(record: ApprovalRecord): ApprovalOutcome {
  if (record.status === 'approved') return record.values ? { status: 'approved', values: record.values } : { status: 'approved' };
  if (record.status === 'pending') return { status: 'denied', reason: 'still pending' };
  return { status: record.status, ...(record.decisionReason ? { reason: record.decisionReason } : {}), ...(record.decidedBy ? { by: record.decidedBy } : {}) };
}
