import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

const children: RunningCli[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
    await child.exited;
  }
});

const cli = (home: string, ...args: string[]) => runCli([...args, '--home', home]);

describe('switchboard webhook', () => {
  it('subscribe prints URL, secret, events and target; a re-subscribe keeps the secret; --json carries it (the sender needs it)', async () => {
    const home = tempHome().root;
    const created = await cli(home, 'webhook', 'subscribe', 'CI-Builds', '--events', 'push, pull_request', '--prompt', 'Build {ref}', '--deliver', 'local', '--deliver-extra', 'note={ref}', '--description', 'CI hook');
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('Subscribed "ci-builds".');
    expect(created.stdout).toContain('URL:      http://127.0.0.1:8644/webhooks/ci-builds');
    const secret = /Secret:\s+(\S+)/.exec(created.stdout)![1]!;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(created.stdout).toContain('Events:   push, pull_request');
    expect(created.stdout).toContain('Deliver:  local {"note":"{ref}"}');
    expect(created.stderr).toContain('No gateway is running');

    const again = await cli(home, 'webhook', 'subscribe', 'ci-builds', '--events', 'push', '--json');
    const record = JSON.parse(again.stdout);
    expect(record).toMatchObject({ name: 'ci-builds', secret, secret_kept: true, events: ['push'], prompt: 'Build {ref}', deliver: 'local', deliver_extra: { note: '{ref}' }, description: 'CI hook', created: false });

    const listed = await cli(home, 'webhook', 'list');
    expect(listed.stdout).toContain('demo  [static]');
    expect(listed.stdout).toContain('ci-builds  [subscription]  http://127.0.0.1:8644/webhooks/ci-builds');
    expect(listed.stdout).not.toContain(secret);
    const listedJson = JSON.parse((await cli(home, 'webhook', 'list', '--json')).stdout) as Array<{ name: string; secret: unknown }>;
    expect(listedJson.map((row) => row.name)).toEqual(['demo', 'ci-builds']);
    expect(JSON.stringify(listedJson)).not.toContain(secret);
    expect(JSON.stringify(JSON.parse((await cli(home, 'webhook', 'list', '--json', '--show-secret')).stdout))).toContain(secret);
  });

  it('refuses bad names, unknown targets and warns about targets not built yet and static routes that win', async () => {
    const home = tempHome().root;
    const badName = await cli(home, 'webhook', 'subscribe', '//');
    expect([badName.code, badName.stderr]).toEqual([1, expect.stringContaining('"//" is not a usable subscription name: it has no letters or digits')]);
    const badTarget = await cli(home, 'webhook', 'subscribe', 'x', '--deliver', 'pigeon');
    expect(badTarget.stderr).toContain('--deliver "pigeon": unknown delivery target "pigeon"');
    const disabled = await cli(home, 'webhook', 'subscribe', 'x', '--deliver', 'telegram:42');
    expect([disabled.code, disabled.stderr]).toEqual([1, expect.stringContaining('--deliver "telegram:42": platforms.telegram is not enabled')]);
    const noRepo = await cli(home, 'webhook', 'subscribe', 'x', '--deliver', 'github_comment');
    expect(noRepo.stderr).toContain('github_comment needs deliver_extra.repo');
    const noSkill = await cli(home, 'webhook', 'subscribe', 'x', '--skills', 'nosuch');
    expect([noSkill.code, noSkill.stderr]).toEqual([1, expect.stringContaining('--skills: skill "nosuch" not found: no skill is installed in')]);
    const later = await cli(home, 'webhook', 'subscribe', 'x', '--deliver', 'github_comment', '--deliver-extra', 'repo={repository.full_name}', '--deliver-extra', 'pr_number={number}');
    expect(later.code).toBe(0);
    const shadowed = await cli(home, 'webhook', 'subscribe', 'demo');
    expect(shadowed.stderr).toContain('Not served: config.json has a static route "demo", which wins');
    expect(shadowed.stderr).not.toContain('serves it');
    expect((await cli(home, 'webhook', 'remove', 'demo')).stderr).toContain('Removed subscription "demo"; the static route "demo" in config.json keeps serving /webhooks/demo.');
    const removeStatic = await cli(home, 'webhook', 'remove', 'demo');
    expect(removeStatic.stderr).toContain('"demo" is a static route in config.json');
    expect(removeStatic.stderr).toContain('switchboard config unset platforms.webhook.extra.routes.demo');
    const noGateway = await cli(home, 'webhook', 'test', 'demo');
    expect([noGateway.code, noGateway.stderr]).toEqual([1, expect.stringContaining('No gateway is running')]);
    expect(noGateway.stderr).toContain('a test request to route "demo" cannot happen now');
    expect((await cli(home, 'webhook', 'remove', 'x')).stderr).toContain('Removed subscription "x"');
    expect((await cli(home, 'webhook', 'remove', 'x')).stderr).toContain('No subscription named "x"');
    expect((await cli(home, 'webhook', 'replay', 'nope')).stderr).toContain('No recorded webhook delivery "nope"');
  });

  it('says how to enable the platform when it is disabled', async () => {
    const home = tempHome().root;
    await cli(home, 'config', 'set', 'platforms.webhook.enabled', 'false');
    for (const args of [['subscribe', 'a'], ['list'], ['deliveries'], ['test', 'a'], ['replay', 'x'], ['remove', 'a']]) {
      const result = await cli(home, 'webhook', ...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain('switchboard config set platforms.webhook.enabled true');
    }
  });

  it('against a running gateway: a new subscription is served at once; test, deliveries and replay', async () => {
    const home = tempHome().root;
    await cli(home, 'config', 'set', 'platforms.webhook.extra.port', '0');
    const gateway = startCli(['gateway', '--home', home]);
    children.push(gateway);
    await gateway.waitFor('Webhook listener on', 30_000);
    const subscribed = await cli(home, 'webhook', 'subscribe', 'live', '--prompt', 'Event {action}', '--deliver', 'local');
    expect(subscribed.stderr).toMatch(/The running gateway \(pid \d+\) serves it now/);
    expect(subscribed.stdout).toMatch(/URL: +http:\/\/127\.0\.0\.1:\d+\/webhooks\/live/);
    expect(subscribed.stdout).not.toContain(':0/');

    const tested = await cli(home, 'webhook', 'test', 'live', '--event', 'issues', '--payload', '{"action":"opened"}');
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^HTTP 202\n\{"status":"accepted","route":"live","event":"issues","delivery_id":"test-[0-9a-f-]+"\}\n$/);
    const deliveryId = /"delivery_id":"([^"]+)"/.exec(tested.stdout)![1]!;

    const delivered = await waitUntil(async () => {
      const rows = JSON.parse((await cli(home, 'webhook', 'deliveries', '--json', '--route', 'live')).stdout) as Array<{ deliveryId: string; state: string; prompt: string }>;
      return rows.find((row) => row.deliveryId === deliveryId && row.state === 'delivered');
    }, 30_000, 'the test delivery');
    expect(delivered.prompt).toBe('Event opened');
    const listing = await cli(home, 'webhook', 'deliveries');
    expect(listing.stdout).toMatch(new RegExp(`delivered +live +issues +${deliveryId}`));
    const shown = await cli(home, 'webhook', 'show', deliveryId);
    expect(shown.stdout).toContain(`Delivery ${deliveryId} on route live (event issues)`);
    expect(shown.stdout).toMatch(/State: +delivered\n/);
    expect(shown.stdout).toMatch(/Prompt:\nEvent opened\n\nOutput:\n\[dry-run\]/);
    const missing = await cli(home, 'webhook', 'show', 'no-such-id');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No recorded webhook delivery "no-such-id"');

    const replay = await cli(home, 'webhook', 'replay', deliveryId);
    expect(replay.stdout.trim()).toBe(`${deliveryId}.replay-1`);
    expect(replay.stderr).toMatch(/The running gateway \(pid \d+\) runs it now/);
    await waitUntil(async () => (await cli(home, 'webhook', 'deliveries', '--limit', '1')).stdout.includes(`delivered       live  issues  ${deliveryId}.replay-1 (replay of ${deliveryId})`), 30_000, 'the replay');

    const badPayload = await cli(home, 'webhook', 'test', 'live', '--payload', '[1,2]');
    expect(badPayload.stderr).toContain('--payload must be a JSON object');
    // Static routes can be tested too (the console's t allows them as well).
    const staticTest = await cli(home, 'webhook', 'test', 'demo');
    expect(staticTest.stdout).toMatch(/^HTTP 202\n/);
    await cli(home, 'webhook', 'remove', 'live');
    const gone = await cli(home, 'webhook', 'subscribe', 'other');
    expect(gone.code).toBe(0);
  });
});
