import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { tmuxServer } from '../helpers/tmux.js';
import { githubHeaders, SECRET, waitUntil } from '../helpers/webhooks.js';

const server = tmuxServer('flood');
const { tmux } = server;
const capture = () => server.capture('c');
const send = (key: string) => server.send('c', key);
const screen = (check: (text: string) => boolean, what: string, timeoutMs = 15_000) =>
  waitUntil(() => check(capture()), timeoutMs, what).catch((error: Error) => { throw new Error(`${error.message}\n${capture()}`); });

const gateways: RunningCli[] = [];
afterEach(async () => {
  server.kill();
  await stopClis(gateways);
});

describe('a console attached while 2,000 webhooks arrive (tmux)', () => {
  it('r replays exactly the delivery selected before the flood', { timeout: 240_000 }, async () => {
    const home = preparedHome((config) => {
      config.platforms!.webhook!.extra!.routes = { gh: { secret: SECRET, prompt: 'PR {action}', deliver: 'log', rate_limit: 100_000 } };
    });
    const gateway = startCli(['gateway', '--home', home.root]);
    gateways.push(gateway);
    await gateway.waitFor('Control channel listening', 30_000);
    tmux('new-session', '-d', '-s', 'c', '-x', '140', '-y', '45', `${process.execPath} ${cliPath} --attach --home ${home.root}`);
    await screen((text) => /attached to pid \d+/.test(text), 'the console attached');
    send('2');
    await screen((text) => text.includes('route gh'), 'the webhooks pane');

    const url = /webhooks\s+(http:\/\/127\.0\.0\.1:\d+)/.exec((await runCli(['status', '--home', home.root])).stdout)![1]!;
    const post = async (deliveryId: string) => {
      const body = JSON.stringify({ action: deliveryId });
      return (await fetch(`${url}/webhooks/gh`, { method: 'POST', headers: { 'content-type': 'application/json', ...githubHeaders(SECRET, body, 'pull_request', deliveryId) }, body })).status;
    };
    expect(await post('d-keep')).toBe(202);
    await screen((text) => /d-keep\s+accepted/.test(text), 'the delivery to keep');
    send('j');
    await screen((text) => text.includes('2/2 · paused'), 'd-keep selected');

    // 2,000 webhooks, 50 at a time: d-keep leaves the console's ring of 500 on the way.
    for (let batch = 0; batch < 40; batch += 1) {
      const statuses = await Promise.all(Array.from({ length: 50 }, (_unused, n) => post(`flood-${batch}-${n}`)));
      expect(statuses.every((status) => status === 202)).toBe(true);
    }
    await screen((text) => text.includes('the selected row left the list') && text.includes('flood-39-'), 'the flood in the console', 60_000);
    send('r');
    await screen((text) => text.includes('Replay queued as d-keep.replay-1.'), 'the replay of d-keep');
    const deliveries = JSON.parse((await runCli(['webhook', 'deliveries', '--route', 'gh', '--limit', '5', '--json', '--home', home.root])).stdout) as Array<{ deliveryId: string; replayOf: string | null }>;
    expect(deliveries[0]).toMatchObject({ deliveryId: 'd-keep.replay-1', replayOf: 'd-keep' });
  });
});
