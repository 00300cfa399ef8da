import type { ApprovalPolicy } from '../agent/approval-queue.js';
import type { HomeLayout } from '../config/home.js';
import { loadOrCreateConfig, type ResolvedConfig } from '../config/load.js';
import { createConfigCommands, type ConfigCommands } from '../gateway/config-commands.js';
import { checkConfig, loadCheckedConfig } from '../gateway/check-config.js';
import type { Gateway } from '../gateway/gateway.js';
import { readConfigFile } from '../infra/config-file.js';
import { lazyLogger } from '../infra/lazy-logger.js';
import { createLogger } from '../infra/logger.js';
import type { JobsCore } from '../scheduler/scheduler.js';
import { createAuditLog } from '../store/audit.js';
import { openStore, type Store } from '../store/database.js';
import { createOperations, type Operations } from './index.js';

export interface LocalOperations {
  operations: Operations;
  /** Events of this process's gateway (runs, approvals) once it was built; for `run` progress. */
  gateway(): Promise<Gateway>;
  close(): Promise<void>;
}

/**
 * Operations in a CLI command's own process while no gateway runs. The gateway is built on first
 * use and never started: its store, jobs, subscriptions and approvals work as in the running one;
 * a run starts only its MCP servers (connected before the run, closed after it). What a command
 * needs is loaded and built when it asks: `cron list` builds the jobs domain alone (the same
 * wiring, createJobsDomain) and never loads the agent, MCP, Fastify or pino.
 */
export function createLocalOperations(home: HomeLayout, options: { version: string; approvalPolicy?: ApprovalPolicy }): LocalOperations {
  let store: Store | undefined;
  let closeLog: (() => Promise<void>) | undefined;
  let resolved: ResolvedConfig | undefined;
  let gateway: Promise<Gateway> | undefined;
  let jobs: Promise<JobsCore> | undefined;
  let config: ConfigCommands | undefined;

  const openStoreOnce = () => {
    store ??= openStore(home.stateDb);
    return store;
  };
  const checkedConfig = () => {
    resolved ??= loadCheckedConfig(home);
    return resolved;
  };
  // Made by the first line logged: `cron list` logs nothing and never loads pino.
  const logger = lazyLogger(() => {
    const made = createLogger({ file: home.gatewayLog, level: 'info', mode: 'quiet' });
    closeLog = made.close;
    return made.logger;
  });
  const gatewayOnce = (): Promise<Gateway> => {
    gateway ??= (async () => {
      const config = checkedConfig();
      const { createGateway } = await import('../gateway/gateway.js');
      return createGateway({ config, store: openStoreOnce(), logger, mode: 'headless', ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}) });
    })();
    return gateway;
  };
  /** The whole gateway's jobs once it is built; until then the jobs domain alone, whose runs go through the gateway. */
  const jobsOnce = (): Promise<JobsCore> => {
    if (gateway) return gateway.then((built) => built.jobs);
    jobs ??= (async () => {
      const config = checkedConfig();
      const [{ createJobsDomain }, { sqliteJobBackend }] = await Promise.all([import('../scheduler/jobs-domain.js'), import('../scheduler/sqlite-jobs.js')]);
      return createJobsDomain({
        config, jobs: sqliteJobBackend(openStoreOnce()), logger,
        runAgent: async (request) => (await gatewayOnce()).runAgent(request),
        deliver: async (request) => (await gatewayOnce()).deliveries.deliver(request),
      }).jobs;
    })();
    return jobs;
  };
  const configOnce = (): ConfigCommands => {
    if (config) return config;
    // Read without loadOrCreateConfig's schema check: `config set` and `unset` can fix an invalid file, and say when it is.
    const checked = checkConfig(readConfigFile(home.configFile) ?? loadOrCreateConfig(home).file, home);
    const log = createAuditLog(openStoreOnce());
    const audit = { record: async (source: string, kind: string, detail?: string) => log.record(source, kind, detail) };
    config = createConfigCommands({
      home, initial: checked.ok ? checked.resolved : null, logger, audit, events: { emit: () => false },
      mcp: { reload: async () => ({ added: [], removed: [], changed: [], unchanged: [], warnings: [] }) }, webhooks: null, live: () => false,
    });
    return config;
  };

  const operations = createOperations({
    home, where: 'local', version: options.version, gateway: gatewayOnce, jobs: jobsOnce, config: configOnce,
    async withRuntime(work) {
      const runtime = (await gatewayOnce()).runtime;
      await runtime.start();
      try {
        return await work();
      } finally {
        await runtime.stop();
      }
    },
  }, async () => {
    const { initialState } = await import('./gateway-state.js');
    const gateway = await gatewayOnce();
    // Not started here: the failed count and the jobs kept in memory are read from the store first.
    await gateway.deliveries.loadFailedCount();
    await gateway.jobs.load();
    return initialState(gateway);
  });

  return {
    operations,
    gateway: gatewayOnce,
    async close() {
      store?.close();
      await closeLog?.();
    },
  };
}
