import { describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import type { GatewayEvent } from '../../source/operations/state.js';
import { runCli } from '../helpers/cli.js';
import { startGatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { preparedHome } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

/** Issue #19: a job changed on one node reaches the consoles of the others by the event channel, not by their 5 s poll. */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

describe('jobs across nodes', () => {
  it('a job made, paused and removed on node A shows on node B within a second each time', { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const homes = [0, 1].map(() => preparedHome());
    for (const home of homes) await startGatewayNode(home, url, running);
    const link = await attachLink({ socketPath: homes[1]!.controlSocket });
    closers.push(() => link.close());
    const seen: Array<{ change: string; name: string | undefined; atMs: number }> = [];
    link.subscribe({
      onSnapshot: () => {},
      onEvent: (event: GatewayEvent) => {
        if (event.type === 'job.changed') seen.push({ change: event.data.change, name: event.data.job?.name, atMs: Date.now() });
      },
    });
    const onA = async (...args: string[]) => {
      const result = await runCli([...args, '--home', homes[0]!.root]);
      expect(result.code, result.stderr).toBe(0);
      return Date.now();
    };
    // Three rounds of each: B's poll (every 5 s) alone would show a change within a second about one time in five.
    for (let round = 1; round <= 3; round += 1) {
      const name = `nightly-${round}`;
      for (const [change, args] of [['created', ['cron', 'create', 'every 1d', 'Summarize the day', '--name', name]], ['updated', ['cron', 'pause', name]], ['removed', ['cron', 'remove', name]]] as const) {
        const count = seen.length;
        const doneAtMs = await onA(...args);
        const heard = await waitUntil(() => seen.slice(count).find((each) => each.change === change), 10_000, `${change} ${name} on node B`);
        expect(heard.atMs - doneAtMs, `${change} ${name}`).toBeLessThan(1_000);
        if (change !== 'removed') expect(heard.name).toBe(name);
      }
    }
  });

  it("a job's run on node A shows its last status on node B at once (the row's version moves with it)", { timeout: 120_000 }, async () => {
    const url = await postgres().freshDatabase();
    const homes = [0, 1].map(() => preparedHome());
    for (const home of homes) await startGatewayNode(home, url, running);
    expect((await runCli(['cron', 'create', 'every 1d', 'Summarize the day', '--name', 'daily', '--home', homes[0]!.root])).code).toBe(0);
    const link = await attachLink({ socketPath: homes[1]!.controlSocket });
    closers.push(() => link.close());
    const statuses: Array<string | null | undefined> = [];
    link.subscribe({
      onSnapshot: () => {},
      onEvent: (event: GatewayEvent) => {
        if (event.type === 'job.changed' && event.data.job?.name === 'daily') statuses.push(event.data.job.lastStatus);
      },
    });
    const run = await runCli(['cron', 'run', 'daily', '--home', homes[0]!.root]);
    expect(run.code, run.stderr).toBe(0);
    const ranAtMs = Date.now();
    await waitUntil(() => statuses.includes('ok'), 10_000, 'node B to hear the last status');
    expect(Date.now() - ranAtMs).toBeLessThan(2_000);
  });
});
