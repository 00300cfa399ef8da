import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { preparedHome, startHost, type TestHost } from '../helpers/host.js';
import { SECRET } from '../helpers/webhooks.js';

let host: TestHost | undefined;
afterEach(async () => { await host?.stop(); host = undefined; });

describe('webhooks.writeSecret', () => {
  it('writes the route secret under <home>/run/secrets with mode 0600, even over a wider file', async () => {
    const home = preparedHome((config) => {
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET } };
    });
    host = await startHost(home);
    const dir = path.join(home.root, 'run', 'secrets');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'gh.secret'), 'old', { mode: 0o644 });
    const { path: file } = await host.operations.webhooks.writeSecret({ route: 'gh' });
    expect(file).toBe(path.join(dir, 'gh.secret'));
    expect(fs.readFileSync(file, 'utf8')).toBe(`${SECRET}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    await expect(host.operations.webhooks.writeSecret({ route: 'nope' })).rejects.toThrow(/nope/);
  });
});
