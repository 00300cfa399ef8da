import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAgentStack } from '../agent/agent-stack.js';
import type { ResolvedConfig } from '../config/load.js';
import { createDeliver } from '../delivery/deliver.js';
import { runningGateway } from '../gateway/lock.js';
import type { Logger } from '../infra/logger.js';
import { createPreRunWorkers } from '../scheduler/pre-run-workers.js';
import { resolveCron } from '../scheduler/resolve-cron.js';
import { createScheduler } from '../scheduler/scheduler.js';
import type { Store } from '../store/database.js';
import type { JobRow, JobRunRow, JobStore } from '../store/jobs.js';
import { say } from './output.js';

const POLL_MS = 200;

/**
 * `cron run`: with a gateway on this home, queue the run in the store (the gateway claims it
 * within a poll) and wait for its record; without one, run it here with the same code.
 */
export async function runJobNow(context: { config: ResolvedConfig; store: Store; jobs: JobStore; logger: Logger }, job: JobRow): Promise<JobRunRow> {
  const gateway = runningGateway(context.config.home.lockFile);
  if (gateway) {
    const runId = randomUUID();
    context.jobs.addRun({ id: runId, jobId: job.id, jobName: job.name, trigger: 'manual', status: 'queued', atMs: Date.now() });
    say(`Queued run ${runId} of ${job.name} (${job.id}) on the running gateway (pid ${gateway.pid}); waiting for it...`);
    for (;;) {
      const run = context.jobs.getRun(runId)!;
      if (run.status !== 'queued' && run.status !== 'running') return run;
      if (!runningGateway(context.config.home.lockFile)) {
        if (run.status === 'queued' && context.jobs.claim(runId, Date.now())) {
          context.jobs.finishRun(runId, job.id, { status: 'error', error: 'the gateway stopped before it took the run', finishedAtMs: Date.now() });
        }
        return context.jobs.getRun(runId)!;
      }
      await sleep(POLL_MS);
    }
  }
  say(`No gateway is running on ${context.config.home.root}: running ${job.name} (${job.id}) in this process...`);
  return runInProcess(context, job);
}

async function runInProcess(context: { config: ResolvedConfig; store: Store; logger: Logger }, job: JobRow): Promise<JobRunRow> {
  const { config, store, logger } = context;
  const cron = resolveCron(config);
  const stack = createAgentStack({ config, store, logger, policy: config.values.approvals?.headless ?? 'deny' });
  const preRun = createPreRunWorkers({ logger });
  const scheduler = createScheduler({
    store, logger, timezone: cron.timezone, scriptTimeoutMs: cron.scriptTimeoutMs, timers: false, preRun,
    runAgent: stack.runAgent, deliver: createDeliver({ homeRoot: config.home.root, logger, config: config.values, store }),
  });
  const controller = new AbortController();
  const onSignal = () => void scheduler.stop().then(() => controller.abort());
  process.once('SIGINT', onSignal);
  try {
    const result = await scheduler.runNow(job.id);
    if (!result.ok) throw new Error(result.reason);
    return result.value;
  } finally {
    process.off('SIGINT', onSignal);
    await preRun.stop();
  }
}
