import { describe, expect, it } from 'vitest';
import { loadCheckedConfig } from '../../source/gateway/check-config.js';
import { createLogRing } from '../../source/infra/log-ring.js';
import { createLogger } from '../../source/infra/logger.js';
import { startGatewayHost } from '../../source/operations/host.js';
import { openStore } from '../../source/store/database.js';
import { preparedHome } from '../helpers/host.js';

describe('the Logs pane of a gateway host', () => {
  it('starts with the lines logged before the host (which store, which node), then takes the new ones', async () => {
    const home = preparedHome();
    const logRing = createLogRing();
    const { logger, close } = createLogger({ file: home.gatewayLog, level: 'info', mode: 'quiet', sink: logRing.stream });
    logger.info('Store: a line logged before the host starts');
    const store = openStore(home.stateDb);
    const host = await startGatewayHost({ home, config: loadCheckedConfig(home, {}), store, logger, logRing, mode: 'headless', version: 'test', env: {} });
    try {
      logger.info('a line logged after');
      const messages = host.state().logs.map((line) => line.message);
      expect(messages[0]).toBe('Store: a line logged before the host starts');
      expect(messages).toContain('a line logged after');
      expect(messages.filter((message) => message.startsWith('Store: a line'))).toHaveLength(1);
    } finally {
      await host.stop('test over');
      store.close();
      await close();
    }
  });
});
