import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import type { ConfigFile } from '../../source/config/types.js';
import type { HomeLayout } from '../../source/config/home.js';
import { createDeliver } from '../../source/delivery/deliver.js';
import { createGatewayEvents, type GatewayEventMap } from '../../source/gateway/events.js';
import { createPreRunWorkers } from '../../source/scheduler/pre-run-workers.js';
import { createScheduler } from '../../source/scheduler/scheduler.js';
import { sqliteExternalChanges } from '../../source/scheduler/sqlite-jobs.js';
import { sqliteBackends, type JobBackend } from '../../source/store/async-domains.js';
import { makeAgentStack } from './agent.js';

export interface SchedulerHarnessOptions {
  /** Fake clock; real time when omitted. */
  now?: () => number;
  timers?: boolean;
  scriptTimeoutMs?: number;
  timezone?: string;
  editConfig?: (config: ConfigFile) => void;
  /** The jobs on another backend (PostgreSQL); without it SQLite's in the home, with data_version to notice other writers. */
  jobs?: JobBackend;
}

/**
 * The real scheduler over a temp home: the real agent runner (dry-run unless the config says
 * otherwise), real delivery, real Bree workers from the build (dist/scheduler/jobs).
 */
export function makeScheduler(home: HomeLayout, options: SchedulerHarnessOptions = {}) {
  const stack = makeAgentStack(home, options.editConfig ?? (() => {}));
  const logger = pino({ level: 'silent' });
  const events = createGatewayEvents();
  const seen: Array<{ name: keyof GatewayEventMap; payload: unknown }> = [];
  for (const name of ['job.started', 'job.finished', 'job.changed'] as const) {
    events.on(name, (payload: unknown) => seen.push({ name, payload }));
  }
  const preRun = createPreRunWorkers({ logger });
  const scheduler = createScheduler({
    ...(options.jobs ? { jobs: options.jobs } : { jobs: sqliteBackends(stack.store).jobs, externalChanges: sqliteExternalChanges(stack.store) }), logger, events, timezone: options.timezone ?? 'UTC', scriptTimeoutMs: options.scriptTimeoutMs ?? 10_000,
    runAgent: stack.runAgent, deliver: createDeliver({ homeRoot: home.root, logger, now: options.now }), preRun,
    now: options.now, timers: options.timers ?? false, pollMs: 100,
  });
  return { scheduler, store: stack.store, events, seen, preRun, jobs: scheduler.jobs };
}

/** Writes an executable script under `dir` and returns its path. */
export function writeScript(dir: string, name: string, body: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** Polls `check` until it returns a truthy value (no fixed sleeps). */
export async function waitFor<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
