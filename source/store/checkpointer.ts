import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Store } from './database.js';

/** SQLite's default: a commit that takes the WAL past this many pages checkpoints it. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

// Run with `eval`: no build step or loader needed (tests run the TypeScript sources). Eval code is
// CommonJS or ESM depending on the parent's flags (`--input-type=module`), so no require or import.
const workerSource = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  if (/SQLite/i.test(typeof warning === 'string' ? warning : warning.message)) return;
  emitWarning(warning, ...rest);
};
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA busy_timeout = 5000');
// A failure is reported when it starts (or changes), and its end once: a full disk lasts a while.
let failing = '';
const timer = setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    if (failing) parentPort.postMessage('');
    failing = '';
  } catch (error) {
    const message = String(error && error.message ? error.message : error);
    if (message !== failing) parentPort.postMessage(message);
    failing = message;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the thread and gives checkpoints back to the store's own commits. */
  stop(): Promise<void>;
}

/**
 * Checkpoints state.db's WAL from a worker thread with its own connection. SQLite otherwise
 * checkpoints inside the commit that crosses 1000 WAL pages: copying those pages and two fsyncs took
 * 5-12 ms on the event loop every few hundred commits, the largest part of the intake's p99. A
 * PASSIVE checkpoint never blocks a writer. Durability does not change: commits are as before
 * (WAL, synchronous=NORMAL). If the thread fails, the store checkpoints by itself again.
 */
export function startCheckpointer(store: Pick<Store, 'db' | 'file'>, options: { intervalMs?: number; onError: (message: string) => void }): Checkpointer {
  let stopped = false;
  let exited = false;
  const fallBack = () => {
    if (store.db.isOpen) store.db.exec(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  store.db.exec('PRAGMA wal_autocheckpoint = 0');
  // stdout/stderr: true keeps the thread's output away from the terminal (Ink owns it in the console).
  const worker = new Worker(workerSource, { eval: true, workerData: { file: store.file, intervalMs: options.intervalMs ?? 100 }, stdout: true, stderr: true });
  worker.unref();
  worker.on('message', (message: string) => options.onError(message ? `WAL checkpoint failed: ${message}; retried every ${options.intervalMs ?? 100} ms` : 'WAL checkpoints work again'));
  worker.on('error', (error) => {
    fallBack();
    options.onError(`WAL checkpoint thread failed: ${error.message}; checkpoints run on commit again`);
  });
  worker.on('exit', () => {
    exited = true;
    if (!stopped) fallBack();
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (exited) return fallBack(); // the thread died earlier: no exit event will come again
      const exit = once(worker, 'exit');
      worker.ref(); // keep the process alive until the thread has closed its connection
      worker.postMessage('stop');
      await exit;
      fallBack();
    },
  };
}
