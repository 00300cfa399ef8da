import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Bree from 'bree';
import type { Logger } from 'pino';
import type { PreRunMessage, PreRunRequest, ScriptRunResult } from './pre-run-types.js';

export interface PreRunWorkers {
  /** Runs the script in a fresh Bree worker; never throws (a broken worker becomes a failed result). */
  run(request: PreRunRequest): Promise<ScriptRunResult>;
  /** Cancels running workers (their scripts' process groups are killed) and waits for them. */
  stop(): Promise<void>;
  readonly running: number;
}

const WORKER_FILE = 'pre-run.js';

/**
 * The folder with the compiled worker files. From dist/ that is ./jobs beside this module; when this
 * module runs from source (vitest, tsx) the workers still come from the build (dist/scheduler/jobs),
 * because workers are started from .js files and nothing compiles them on the fly.
 */
export function defaultJobsRoot(moduleUrl: string = import.meta.url): string {
  const beside = fileURLToPath(new URL('./jobs/', moduleUrl));
  if (fs.existsSync(`${beside}${WORKER_FILE}`)) return beside;
  return fileURLToPath(new URL('../../dist/scheduler/jobs/', moduleUrl));
}

/** Bree runs the workers (only that: croner computes every schedule). Bree logs through pino, never the console. */
export function createPreRunWorkers(deps: { logger: Logger; root?: string; childrenDir?: string }): PreRunWorkers {
  const root = deps.root ?? defaultJobsRoot();
  const file = `${root}${root.endsWith('/') ? '' : '/'}${WORKER_FILE}`;
  const log = deps.logger.child({ component: 'bree' });
  const pending = new Map<string, { resolve: (result: ScriptRunResult) => void; result?: ScriptRunResult }>();
  // Bree loads with the first pre-run script: a gateway whose jobs have none never loads it.
  let bree: Promise<Bree> | undefined;
  const makeBree = async (): Promise<Bree> => {
    const { default: BreeClass } = await import('bree');
    const made = new BreeClass({
      root,
      doRootCheck: false,
      jobs: [],
      removeCompleted: true,
      logger: {
        info: (message: unknown) => log.debug(String(message)),
        warn: (message: unknown) => log.warn(String(message)),
        error: (message: unknown) => log.error(String(message instanceof Error ? message.message : message)),
      },
      workerMessageHandler: ({ name, message }) => {
        const entry = pending.get(name);
        const data = message as PreRunMessage | string;
        if (entry && typeof data === 'object' && data.kind === 'pre-run.result') entry.result = data.result;
      },
      errorHandler: (error, { name }) => log.error({ worker: name }, `Pre-run worker failed: ${(error as Error)?.message ?? String(error)}`),
    });
    made.on('worker deleted', (name: string) => {
      const entry = pending.get(name);
      if (!entry) return;
      pending.delete(name);
      entry.resolve(entry.result ?? failed('the pre-run worker exited without a result (see logs/gateway.log)'));
    });
    return made;
  };

  return {
    get running() {
      return pending.size;
    },
    async run(request) {
      if (!fs.existsSync(file)) return failed(`the worker file ${file} is missing: run npm run build`);
      const name = `pre-run-${request.fireId}`;
      const done = new Promise<ScriptRunResult>((resolve) => pending.set(name, { resolve }));
      try {
        const workers = await (bree ??= makeBree());
        await workers.add({ name, path: file, timeout: false, interval: 0, worker: { workerData: { request: { ...request, childrenDir: deps.childrenDir } } } });
        await workers.run(name);
      } catch (error) {
        pending.delete(name);
        return failed(`the pre-run worker could not start: ${(error as Error).message}`);
      }
      return done;
    },
    async stop() {
      if (pending.size > 0 && bree) await (await bree).stop();
    },
  };
}

function failed(reason: string): ScriptRunResult {
  return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: false, failure: reason, durationMs: 0 };
}
