import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../source/config/default-config.js';
import { createDeliveryService } from '../../source/delivery/deliver.js';
import { writeConfigFile } from '../../source/infra/config-file.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { startFakeService } from '../fixtures/fake-service.js';
import { runCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0)) await close(); });

describe('switchboard deliveries', () => {
  it('lists a failed delivery with its attempts and retries it once the service is back', async () => {
    const fake = await startFakeService([{ status: 500 }, { status: 500 }, { status: 500 }, { body: { ok: true } }]);
    closers.push(fake.close);
    const home = tempHome();
    const config = { ...defaultConfig(), platforms: { ...defaultConfig().platforms, telegram: { enabled: true, bot_token: '42:secret-token', api_base_url: fake.url, home_channel: '-100' } } };
    writeConfigFile(home.configFile, config as Record<string, unknown>);
    const store = openStore(home.stateDb);
    const service = createDeliveryService({ homeRoot: home.root, logger: pino({ level: 'silent' }), config, history: sqliteBackends(store).outputDeliveries, retry: { baseDelayMs: 5 } });
    const failed = await service.deliver({ target: 'telegram', output: 'nightly: 3 failures', subject: { kind: 'job', jobId: 'j9', jobName: 'nightly', runId: 'r' } });
    store.close();
    expect(failed.ok).toBe(false);

    const list = await runCli(['deliveries', 'list', '--failed', '--home', home.root]);
    expect(list.stdout).toContain(`${failed.recordId!.slice(0, 8)}  failed    telegram  job nightly (j9) run r`);
    expect(list.stdout).toContain('3 attempt(s)');
    expect(list.stdout).toContain('telegram to -100 failed: HTTP 500');
    expect(list.stdout).not.toContain('secret-token');
    const json = JSON.parse((await runCli(['deliveries', 'list', '--json', '--home', home.root])).stdout);
    expect(json[0]).toMatchObject({ id: failed.recordId, status: 'failed', attempts: [{ attempt: 1, status: 500 }, { attempt: 2 }, { attempt: 3 }] });

    const retry = await runCli(['deliveries', 'retry', failed.recordId!.slice(0, 8), '--home', home.root]);
    expect(retry.stderr).toBe('Delivered: sent to telegram -100\n');
    expect(retry.code).toBe(0);
    expect(fake.calls).toHaveLength(4);
    expect((await runCli(['deliveries', 'list', '--failed', '--home', home.root])).stderr).toBe('No failed deliveries.\n');
    const again = await runCli(['deliveries', 'retry', failed.recordId!.slice(0, 8), '--home', home.root]);
    expect(again.stderr).toBe(`Nothing to retry: ${failed.recordId!.slice(0, 8)} was already delivered\n`);
    expect(again.code).toBe(0);
    expect(fake.calls).toHaveLength(4);
    // A send to the log is one attempt, shown as a chat's are (it was the one row without a count).
    const local = await (async () => {
      const again = openStore(home.stateDb);
      const result = await createDeliveryService({ homeRoot: home.root, logger: pino({ level: 'silent' }), config, history: sqliteBackends(again).outputDeliveries }).deliver({ target: 'log', output: 'fine', subject: { kind: 'job', jobId: 'j8', jobName: 'daily', runId: 'r2' } });
      again.close();
      return result;
    })();
    const logged = (await runCli(['deliveries', 'list', '--home', home.root])).stdout.split('\n').find((line) => line.startsWith(local.recordId!.slice(0, 8)))!;
    expect(logged).toMatch(/ delivered log {2}job daily \(j8\) run r2 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}1 attempt\(s\)$/);
    const missing = await runCli(['deliveries', 'retry', 'nope', '--home', home.root]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No delivery with id "nope"');
  });
});
