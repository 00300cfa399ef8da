import type { HomeLayout } from '../config/home.js';
import { resolveConfig } from '../config/load.js';
import { createGateway } from '../gateway/gateway.js';
import { createLogger } from '../infra/logger.js';
import { openStore } from '../store/database.js';
import { loadConfigFor } from './context.js';
import { reportError, say } from './output.js';

/**
 * `switchboard gateway`: the core without a UI. Runs until SIGINT or SIGTERM, then shuts down in
 * order (intake first). A second signal during shutdown exits at once.
 */
export async function runHeadlessGateway(home: HomeLayout, homeFlag: string | undefined): Promise<number> {
  const loaded = loadConfigFor(home, homeFlag);
  const config = resolveConfig(loaded.file, home);
  const { logger, fileLogger, close: closeLog } = createLogger({ file: home.gatewayLog, level: config.logLevel, mode: 'headless' });
  const store = openStore(home.stateDb);
  let gateway: ReturnType<typeof createGateway>;
  try {
    gateway = createGateway({ config, store, logger, mode: 'headless' });
    await gateway.start();
  } catch (error) {
    fileLogger.error({ err: error }, 'Gateway failed to start');
    store.close();
    closeLog();
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
  await gateway.stop(`${signal} received`);
  logger.info('Gateway stopped');
  store.close();
  closeLog();
  return 0;
}
