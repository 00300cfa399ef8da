/**
 * Bree worker: runs one job's pre-run script and posts the result back. Started from the compiled
 * file (dist/scheduler/jobs/pre-run.js) for every fire of a job that has a script.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runScript } from '../../infra/run-script.js';
import type { PreRunRequest, PreRunMessage } from '../pre-run-types.js';

const request = (workerData as { request: PreRunRequest }).request;
const controller = new AbortController();
parentPort?.on('message', (message: unknown) => {
  if (message === 'cancel') controller.abort();
});

const result = await runScript({ file: request.script, timeoutMs: request.timeoutMs, signal: controller.signal, childrenDir: request.childrenDir });
const message: PreRunMessage = { kind: 'pre-run.result', fireId: request.fireId, result };
parentPort?.postMessage(message);
if (result.cancelled) parentPort?.postMessage('cancelled');
// Lets Bree tear the worker down at once rather than waiting for the event loop to drain.
parentPort?.postMessage('done');
