import { pino } from 'pino';
import { defaultConfig } from '../../source/config/default-config.js';
import type { HomeLayout } from '../../source/config/home.js';
import { resolveConfig } from '../../source/config/load.js';
import type { ConfigFile } from '../../source/config/types.js';
import { createGateway } from '../../source/gateway/gateway.js';
import { writeConfigFile } from '../../source/infra/config-file.js';
import { openStore } from '../../source/store/database.js';

/**
 * A gateway core over a real store in a temp home; port 0 unless the config says otherwise.
 * `writeConfig` also writes config.json first (the console's config commands read and write it).
 */
export function makeGateway(home: HomeLayout, edit: (config: ConfigFile) => void = () => {}, pid?: number, mode: 'headless' | 'console' = 'headless', writeConfig = false) {
  const file = defaultConfig();
  file.platforms!.webhook!.extra!.port = 0;
  edit(file);
  if (writeConfig) writeConfigFile(home.configFile, file as Record<string, unknown>);
  const config = resolveConfig(file, home, {});
  const store = openStore(home.stateDb);
  const gateway = createGateway({ config, store, logger: pino({ level: 'silent' }), pid, mode });
  return { gateway, store, config };
}
