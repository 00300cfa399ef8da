import type { Logger } from 'pino';
import type { LogFileHealth } from '../infra/log-file.js';
import { startCheckpointer, type Checkpointer } from '../store/checkpointer.js';
import { GATEWAY_BUSY_TIMEOUT_MS, type Store } from '../store/database.js';
import { faultSummary, StoreUnavailableError, type StoreFault } from '../store/store-fault.js';
import type { GatewayEvents } from './events.js';
import type { Component } from './lifecycle.js';

/** What `/health` and the console's header say; read from memory only, never from the store. */
export interface GatewayHealth {
  /** `unavailable`: intake refuses (503) because state.db cannot take writes; `degraded`: the log drops lines. */
  status: 'ok' | 'degraded' | 'unavailable';
  store: { fault: StoreFault | null; keptWrites: number };
  log: LogFileHealth;
}

export function gatewayHealth(store: Store, logHealth: () => LogFileHealth): GatewayHealth {
  const fault = store.fault() ?? null;
  const log = logHealth();
  return { status: fault ? 'unavailable' : log.fault ? 'degraded' : 'ok', store: { fault, keptWrites: store.keptPending() }, log };
}

/**
 * The store while the gateway runs: writes of one event-loop turn share a commit, the WAL is
 * checkpointed off the event loop, a lock held by another process is waited on for 200 ms at most
 * (a longer wait would block /health and the control channel), and a fault is logged and announced
 * once when it starts and once when it ends. Stopped last: what is open commits, kept writes get one
 * more try.
 */
export function storeComponent(deps: { store: Store; logger: Logger; events: GatewayEvents; now: () => number }): Component {
  const { store, logger, events, now } = deps;
  let checkpointer: Checkpointer | undefined;
  let faultedAt: StoreFault | undefined;
  const reportCommitError = (error: unknown) => {
    // A store fault is logged once where it starts; its kept writes are redone.
    if (error instanceof StoreUnavailableError) return;
    logger.error({ err: error }, 'Committing to state.db failed; the writes of that moment are lost');
  };
  store.onFaultChange((fault) => {
    if (fault) {
      faultedAt = fault;
      logger.error({ kind: fault.kind, reason: fault.message }, `state.db cannot take writes: ${faultSummary(fault)}. Webhooks are refused with 503 until it can; run results are kept in memory meanwhile`);
      events.emit('store.faulted', { fault });
      return;
    }
    const kind = faultedAt?.kind ?? 'io';
    const faultedForMs = now() - (faultedAt?.sinceMs ?? now());
    faultedAt = undefined;
    logger.warn({ kind, faultedForMs }, `state.db takes writes again after ${Math.round(faultedForMs / 1000)} s; ${store.keptPending()} kept write(s) still to write`);
    events.emit('store.recovered', { kind, faultedForMs, atMs: now() });
  });
  return {
    name: 'store',
    start: () => {
      store.setBusyTimeout(GATEWAY_BUSY_TIMEOUT_MS);
      store.setGrouping(true, reportCommitError);
      checkpointer = startCheckpointer(store, { onError: (message) => logger.warn(message) });
    },
    stop: async () => {
      await checkpointer?.stop();
      store.setGrouping(false, reportCommitError);
      const lost = store.flushKept();
      if (lost > 0) logger.error(`${lost} kept write(s) could not be written before stopping (${store.fault() ? faultSummary(store.fault()!) : 'the store refused them'}); runs they belong to are closed as interrupted at the next start`);
    },
  };
}
