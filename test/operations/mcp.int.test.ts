import { describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, NODE } from '../helpers/mcp.js';
import { preparedHome, startHost } from '../helpers/host.js';

describe('mcp operations', () => {
  it('refuses to reconnect a disabled server, naming it and how to enable it', async () => {
    const home = preparedHome((config) => { config.mcp_servers = { quiet: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], enabled: false } }; });
    const host = await startHost(home);
    await expect(host.operations.mcp.reconnect({ server: 'quiet' })).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringContaining('"quiet" is disabled'),
      hint: 'Enable it with: switchboard config set mcp_servers.quiet.enabled true',
    });
  });
});
