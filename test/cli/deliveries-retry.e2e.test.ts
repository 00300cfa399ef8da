import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import type { GatewayLink } from '../../source/operations/link.js';
import { createReadModel, type ReadModel } from '../../source/operations/state.js';
import { runCli, startCli, stopClis, type RunningCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

const children: RunningCli[] = [];
const links: GatewayLink[] = [];
afterEach(async () => {
  for (const link of links.splice(0)) await link.close();
  await stopClis(children);
});

/** A console's view of the gateway: its snapshot, then every event folded in, as the console's read model does. */
async function attachConsole(socketPath: string): Promise<() => ReadModel | undefined> {
  const link = await attachLink({ socketPath });
  links.push(link);
  let model: ReadModel | undefined;
  link.subscribe({
    onSnapshot: (state) => { if (model) model.reset(state); else model = createReadModel(state); },
    onEvent: (event) => model?.apply(event),
  });
  return () => model;
}

interface DeliveryRow { id: string; status: string; subject: { kind: string; deliveryId?: string; jobId?: string }; attempts: unknown[] }

describe('switchboard deliveries retry through a running gateway', () => {
  it('a retry that delivers makes the webhook delivery delivered and the job\'s last status ok, and attached consoles see both; one that fails again changes nothing but its count', async () => {
    const home = preparedHome();
    const cli = (...args: string[]) => runCli([...args, '--home', home.root]);
    const gateway = startCli(['gateway', '--home', home.root]);
    children.push(gateway);
    await gateway.waitFor('Webhook listener on', 30_000);
    const console = await attachConsole(home.controlSocket);

    // Files where the `local` target's folders would go: both outputs fail to be written.
    expect((await cli('webhook', 'subscribe', 'live', '--deliver', 'local')).code).toBe(0);
    const job = JSON.parse((await cli('cron', 'create', 'every 1h', 'Summarise', '--name', 'nightly', '--deliver', 'local', '--json')).stdout) as { id: string };
    const blockers = [path.join(home.root, 'deliveries', 'live'), path.join(home.root, 'cron', 'output', job.id)];
    for (const file of blockers) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '');
    }
    const tested = await cli('webhook', 'test', 'live', '--event', 'issues');
    const deliveryId = /"delivery_id":"([^"]+)"/.exec(tested.stdout)![1]!;
    await waitUntil(async () => (await cli('webhook', 'show', deliveryId)).stdout.match(/State: +delivery_failed\n/), 30_000, 'the webhook delivery to fail');
    const ran = await cli('cron', 'run', 'nightly');
    expect(ran.code).toBe(1);
    expect((await cli('cron', 'list')).stdout).toMatch(/nightly .* delivery_failed +local/);

    const failed = JSON.parse((await cli('deliveries', 'list', '--failed', '--json')).stdout) as DeliveryRow[];
    const webhookSend = failed.find((row) => row.subject.deliveryId === deliveryId)!;
    const jobSend = failed.find((row) => row.subject.jobId === job.id)!;
    expect([webhookSend.attempts.length, jobSend.attempts.length]).toEqual([1, 1]);

    // Still blocked: the retry fails, its attempt is counted, and nothing else moves.
    const again = await cli('deliveries', 'retry', webhookSend.id.slice(0, 8));
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('Still failing: cannot write')]);
    expect((await cli('deliveries', 'list', '--failed')).stdout).toContain(`${webhookSend.id.slice(0, 8)}  failed    local  webhook live delivery ${deliveryId}`);
    expect((await cli('deliveries', 'list', '--failed')).stdout).toMatch(new RegExp(`${webhookSend.id.slice(0, 8)} .* 2 attempt\\(s\\)\\n`));
    expect((await cli('webhook', 'show', deliveryId)).stdout).toMatch(/State: +delivery_failed\n/);

    for (const file of blockers) fs.rmSync(file);
    for (const send of [webhookSend, jobSend]) {
      const retried = await cli('deliveries', 'retry', send.id.slice(0, 8));
      expect([retried.code, retried.stderr]).toEqual([0, expect.stringMatching(/^Delivered: \//)]);
    }

    // The records say it, with the first failure kept.
    const shown = (await cli('webhook', 'show', deliveryId)).stdout;
    expect(shown).toMatch(/State: +delivered\n/);
    expect(shown).toMatch(/Target: +local - .*deliveries\/live\/.*\.md \(delivered on retry; before: cannot write .*\)\n/);
    const [listed] = JSON.parse((await cli('cron', 'list', '--json')).stdout) as Array<{ lastStatus: string; lastError: string | null; consecutiveFailures: number }>;
    expect(listed).toMatchObject({ lastStatus: 'ok', lastError: null, consecutiveFailures: 0 });
    const [run] = JSON.parse((await cli('cron', 'runs', 'nightly', '--json')).stdout) as Array<{ status: string; deliveryOk: boolean; deliveryDetail: string }>;
    expect(run).toMatchObject({ status: 'ok', deliveryOk: true, deliveryDetail: expect.stringMatching(/\(delivered on retry; before: cannot write .*\)$/) });
    expect((await cli('deliveries', 'list', '--failed')).stderr).toBe('No failed deliveries.\n');

    // An attached console saw both change, through the events it folds.
    await waitUntil(() => {
      const state = console()?.state();
      const row = state?.webhooks.find((each) => each.deliveryId === deliveryId);
      return row?.runState === 'delivered' && row.delivery?.ok === true && state!.jobs.find((each) => each.id === job.id)?.lastStatus === 'ok' && state!.failedDeliveries === 0;
    }, 5_000, 'the console to show the retried deliveries');
  });
});
