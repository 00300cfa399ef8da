import fs from 'node:fs';
import { afterEach } from 'vitest';
import { defaultConfig } from '../../source/config/default-config.js';
import type { HomeLayout } from '../../source/config/home.js';
import type { ConfigFile } from '../../source/config/types.js';
import { loadCheckedConfig } from '../../source/gateway/check-config.js';
import { writeConfigFile } from '../../source/infra/config-file.js';
import { createLogRing } from '../../source/infra/log-ring.js';
import { createLogger } from '../../source/infra/logger.js';
import { startGatewayHost, type GatewayHost } from '../../source/operations/host.js';
import { openStore, type Store } from '../../source/store/database.js';
import { tempHome } from './temp-home.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A home whose config.json is the first-run default (listener on an ephemeral port) with `edit` applied. */
export function preparedHome(edit: (config: ConfigFile) => void = () => {}): HomeLayout {
  const home = tempHome();
  fs.mkdirSync(home.root, { recursive: true, mode: 0o700 });
  const config = defaultConfig();
  config.platforms!.webhook!.extra!.port = 0;
  edit(config);
  writeConfigFile(home.configFile, config as Record<string, unknown>);
  return home;
}

/** A host whose `stop()` also closes its store and log, once (tests call it, or the afterEach does). */
export type TestHost = Omit<GatewayHost, 'stop'> & { store: Store; stop(): Promise<void> };

/** A real gateway host (gateway, operations, journal, control socket) on `home`, stopped after the test. */
export async function startHost(home: HomeLayout, mode: 'headless' | 'console' = 'headless'): Promise<TestHost> {
  const config = loadCheckedConfig(home, {});
  const logRing = createLogRing();
  const { logger, close } = createLogger({ file: home.gatewayLog, level: 'info', mode: 'quiet', sink: logRing.stream });
  const store = openStore(home.stateDb);
  const host = await startGatewayHost({ home, config, store, logger, logRing, mode, version: 'test', env: {} });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await host.stop('test over');
    store.close();
    await close();
  };
  stops.push(stop);
  return { ...host, store, stop };
}
