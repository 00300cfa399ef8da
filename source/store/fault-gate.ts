import { storeFaultKind, StoreUnavailableError, type StoreFault } from './store-fault.js';

/** How often a faulted store is tried again; between tries, writes fail at once (no busy wait). */
export const PROBE_INTERVAL_MS = 250;

export interface FaultGate {
  /** Throws StoreUnavailableError while a fault is fresh: a flood of writes must not each wait out the busy timeout. */
  check(): void;
  /** Classifies a failed write: a fault is recorded and comes back as StoreUnavailableError; anything else as it was. */
  failed(error: unknown): unknown;
  /** A commit went through: the fault, if any, is over. */
  succeeded(): void;
  fault(): StoreFault | undefined;
  onChange(listener: (fault: StoreFault | undefined) => void): void;
}

/** The error a write refused for `fault` gets: a lock passes in a second, a full disk takes longer. */
export function storeUnavailable(fault: StoreFault): StoreUnavailableError {
  return new StoreUnavailableError(fault, fault.kind === 'locked' ? 1 : 5);
}

/**
 * Remembers the store's current fault. While one holds, one write per probe interval is let
 * through to SQLite (it waits the busy timeout at most); the others fail at once, so the event loop
 * stays free for /health, the control channel and the runs.
 */
export function createFaultGate(clock: () => number = Date.now): FaultGate {
  let current: StoreFault | undefined;
  let nextProbeAtMs = 0;
  const listeners: Array<(fault: StoreFault | undefined) => void> = [];

  return {
    check() {
      if (!current) return;
      if (clock() < nextProbeAtMs) throw storeUnavailable(current);
      nextProbeAtMs = clock() + PROBE_INTERVAL_MS;
    },
    failed(error) {
      if (error instanceof StoreUnavailableError) return error;
      const kind = storeFaultKind(error);
      if (!kind) return error;
      const message = (error as Error).message;
      const changed = current?.kind !== kind;
      current = changed ? { kind, message, sinceMs: clock() } : { ...current!, message };
      nextProbeAtMs = clock() + PROBE_INTERVAL_MS;
      if (changed) for (const listener of listeners) listener(current);
      return storeUnavailable(current);
    },
    succeeded() {
      if (!current) return;
      current = undefined;
      for (const listener of listeners) listener(undefined);
    },
    fault: () => current,
    onChange: (listener) => void listeners.push(listener),
  };
}
