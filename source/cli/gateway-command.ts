import type { HomeLayout } from '../config/home.js';
import { createLogRing } from '../infra/log-ring.js';
import { createLogger } from '../infra/logger.js';
import { loadCheckedConfig } from '../gateway/check-config.js';
import { startGatewayHost, type GatewayHost } from '../operations/host.js';
import { openStore } from '../store/database.js';
import { ensureConfig } from './context.js';
import { reportError, say } from './output.js';
import { version } from './version.js';

/**
 * `switchboard gateway`: the core without a UI, serving its operations and events on the home's
 * control socket. Runs until SIGINT or SIGTERM, then shuts down in order (intake first). A second
 * signal during shutdown exits at once.
 */
export async function runHeadlessGateway(home: HomeLayout, homeFlag: string | undefined): Promise<number> {
  let host: GatewayHost;
  let close = () => {};
  try {
    ensureConfig(home, homeFlag);
    const config = loadCheckedConfig(home);
    const logRing = createLogRing();
    const { logger, fileLogger, close: closeLog } = createLogger({ file: home.gatewayLog, level: config.logLevel, mode: 'headless', sink: logRing.stream });
    const store = openStore(home.stateDb);
    close = () => {
      store.close();
      closeLog();
    };
    try {
      host = await startGatewayHost({ home, config, store, logger, logRing, mode: 'headless', version });
    } catch (error) {
      fileLogger.error({ err: error }, 'Gateway failed to start');
      throw error;
    }
  } catch (error) {
    close();
    return reportError(error);
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const force = () => {
    say('Second signal: exiting without a clean shutdown.');
    process.exit(130);
  };
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  await host.stop(`${signal} received`);
  host.gateway.events.removeAllListeners();
  close();
  return 0;
}
