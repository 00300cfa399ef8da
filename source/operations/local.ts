import type { ApprovalPolicy } from '../agent/approval-queue.js';
import type { HomeLayout } from '../config/home.js';
import { loadOrCreateConfig } from '../config/load.js';
import { createConfigCommands, type ConfigCommands } from '../gateway/config-commands.js';
import { checkConfig, loadCheckedConfig } from '../gateway/check-config.js';
import { createGateway, type Gateway } from '../gateway/gateway.js';
import { createAuditLog } from '../store/audit.js';
import { createLogger, type Logger } from '../infra/logger.js';
import { openStore, type Store } from '../store/database.js';
import { initialState } from './gateway-state.js';
import { createOperations, type Operations } from './index.js';

export interface LocalOperations {
  operations: Operations;
  /** Events of this process's gateway (runs, approvals) once it was built; for `run` progress. */
  gateway(): Gateway;
  close(): Promise<void>;
}

/**
 * Operations in a CLI command's own process while no gateway runs. The gateway is built on first
 * use and never started: its store, jobs, subscriptions and approvals work as in the running one;
 * a run starts only its MCP servers (connected before the run, closed after it).
 */
export function createLocalOperations(home: HomeLayout, options: { version: string; approvalPolicy?: ApprovalPolicy }): LocalOperations {
  let store: Store | undefined;
  let closeLog: (() => Promise<void>) | undefined;
  let gateway: Gateway | undefined;
  let config: ConfigCommands | undefined;

  const openStoreOnce = () => {
    store ??= openStore(home.stateDb);
    return store;
  };
  let log: Logger | undefined;
  const logger = (): Logger => {
    if (!log) {
      const made = createLogger({ file: home.gatewayLog, level: 'info', mode: 'quiet' });
      closeLog = made.close;
      log = made.logger;
    }
    return log;
  };
  const gatewayOnce = (): Gateway => {
    if (gateway) return gateway;
    const resolved = loadCheckedConfig(home);
    gateway = createGateway({ config: resolved, store: openStoreOnce(), logger: logger(), mode: 'headless', ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}) });
    return gateway;
  };
  const configOnce = (): ConfigCommands => {
    if (gateway) return gateway.config;
    if (config) return config;
    const checked = checkConfig(loadOrCreateConfig(home).file, home);
    const audit = createAuditLog(openStoreOnce());
    config = createConfigCommands({
      home, initial: checked.ok ? checked.resolved : null, logger: logger(), audit, events: { emit: () => false },
      mcp: { reload: async () => ({ added: [], removed: [], changed: [], unchanged: [], warnings: [] }) }, webhooks: null, live: () => false,
    });
    return config;
  };

  const operations = createOperations({
    home, where: 'local', version: options.version, gateway: gatewayOnce, config: configOnce,
    async withRuntime(work) {
      const runtime = gatewayOnce().runtime;
      await runtime.start();
      try {
        return await work();
      } finally {
        await runtime.stop();
      }
    },
  }, () => initialState(gatewayOnce()));

  return {
    operations,
    gateway: gatewayOnce,
    async close() {
      store?.close();
      await closeLog?.();
    },
  };
}
