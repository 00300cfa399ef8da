import { skillsCheck } from '../agent/skills-check.js';
import type { Logger } from 'pino';
import type { RunAgent } from '../agent/types.js';
import type { ResolvedConfig } from '../config/load.js';
import type { Deliver } from '../delivery/types.js';
import type { GatewayEvents } from '../gateway/events.js';
import type { JobBackend } from '../store/async-domains.js';
import { jobDeliverCheck } from './deliver-check.js';
import { createPreRunWorkers } from './pre-run-workers.js';
import { resolveCron } from './resolve-cron.js';
import { createJobsCore, createScheduler } from './scheduler.js';

export interface JobsDomainDeps {
  config: ResolvedConfig;
  jobs: JobBackend;
  /** How the scheduler notices jobs other processes wrote (SchedulerDeps.externalChanges); re-read at each pass when absent. */
  externalChanges?: () => boolean;
  logger: Logger;
  runAgent: RunAgent;
  deliver: Deliver;
  events?: Pick<GatewayEvents, 'emit'>;
  now?: () => number;
  /** Cluster mode: SchedulerDeps.announce. */
  announce?: () => void;
}

/**
 * The scheduler and the jobs commands, wired from the checked config: the gateway builds them this
 * way, and so does a CLI command's own process when it needs only jobs (`cron list` then loads
 * neither the agent, MCP nor the webhook platform).
 */
export function createJobsDomain(deps: JobsDomainDeps) {
  const cron = resolveCron(deps.config);
  const scheduler = createScheduler({
    jobs: deps.jobs, ...(deps.externalChanges ? { externalChanges: deps.externalChanges } : {}), ...(deps.announce ? { announce: deps.announce } : {}), logger: deps.logger, ...(deps.events ? { events: deps.events } : {}), ...(deps.now ? { now: deps.now } : {}),
    timezone: cron.timezone, scriptTimeoutMs: cron.scriptTimeoutMs, runAgent: deps.runAgent, deliver: deps.deliver,
    preRun: createPreRunWorkers({ logger: deps.logger, childrenDir: deps.config.home.childrenDir }), checkDeliver: jobDeliverCheck(deps.config.values, deps.config.home.configFile),
    checkSkills: skillsCheck(deps.config.home.skillsDir),
  });
  return { cron, scheduler, jobs: createJobsCore(scheduler, cron.scriptsDir, cron.timezone) };
}
