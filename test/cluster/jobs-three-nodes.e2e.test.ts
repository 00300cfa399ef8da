import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../source/store/pg/pg-store.js';
import { runCli } from '../helpers/cli.js';
import { startGatewayNode, type GatewayNode, useClusterCleanup, usePostgres } from '../helpers/cluster.js';
import { preparedHome } from '../helpers/host.js';
import { tempHome } from '../helpers/temp-home.js';
import { waitUntil } from '../helpers/webhooks.js';

/**
 * Issue #19: "Twenty `every 1m` jobs on three nodes for 3 minutes: exactly three runs each", in real
 * time with three real `switchboard gateway` processes on one PostgreSQL. The moving-clock version
 * (test/scheduler/scheduler-cluster.int.test.ts) covers the races slot by slot and the catch-up;
 * this one checks the whole product: jobs made through the CLI on different nodes, each node's own
 * timers, Bree workers and the database deciding who fires. Mostly waiting: about four minutes.
 */
const postgres = usePostgres();

const { running, closers } = useClusterCleanup();

const MINUTE = 60_000;

interface JobRunRow { job_name: string; trigger: string; status: string; scheduled_at_ms: number; node_id: string }

describe('scheduled jobs on three gateway processes', () => {
  it('twenty every-1m jobs for three real minutes: exactly three runs each, each pre-run script in the node that took its slot', { timeout: 330_000 }, async () => {
    const url = await postgres().freshDatabase();
    const homes = [0, 1, 2].map(() => preparedHome());
    const nodes: GatewayNode[] = await Promise.all(homes.map((home) => startGatewayNode(home, url, running)));
    const nodeIds = homes.map((home) => fs.readFileSync(path.join(home.root, 'node-id'), 'utf8').trim());
    const nodeOfPid = new Map(nodes.map((node, index) => [String(node.cli.child.pid), nodeIds[index]!]));

    // The first two jobs have a pre-run script that notes the process it runs under (its parent:
    // the gateway whose Bree worker started it), one line per fire.
    const scratch = tempHome().root;
    fs.mkdirSync(scratch, { recursive: true });
    const scripts = [0, 1].map((index) => {
      const file = path.join(scratch, `usage-${index}.sh`);
      fs.writeFileSync(file, `#!/bin/sh\necho "$PPID" >> "${scratch}/fires-${index}"\necho "usage 42%"\n`, { mode: 0o755 });
      return file;
    });

    // Made at once, spread over the three nodes (each CLI goes through its node's control channel).
    const created = await Promise.all(Array.from({ length: 20 }, async (_, index) => {
      const result = await runCli(['cron', 'create', 'every 1m', `Report ${index}`, '--name', `minutely-${index}`, '--deliver', 'log', '--json',
        ...(index < 2 ? ['--script', scripts[index]!] : []), '--home', homes[index % 3]!.root]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { name: string; nextRunAtMs: number };
    }));
    const firstSlots = created.map((job) => job.nextRunAtMs);
    // Every job has fired its third slot after the last job's third; the first job's fourth slot is
    // the end of the window in which each must have exactly three.
    const thirdOfLast = Math.max(...firstSlots) + 2 * MINUTE;
    const fourthOfFirst = Math.min(...firstSlots) + 3 * MINUTE;
    expect(fourthOfFirst - thirdOfLast).toBeGreaterThan(30_000);

    const db = await openPgStore(url);
    closers.push(() => db.close());
    const finished = async () => (await db.query<JobRunRow>(`SELECT job_name, trigger, status, scheduled_at_ms, node_id FROM job_runs
      WHERE status NOT IN ('queued', 'running') ORDER BY job_name, scheduled_at_ms`)).rows;
    await waitUntil(async () => Date.now() > thirdOfLast && (await finished()).length >= 60, thirdOfLast - Date.now() + 30_000, 'sixty finished runs');
    const runs = await finished();
    expect(Date.now()).toBeLessThan(fourthOfFirst); // read inside the window

    for (const job of created) {
      const mine = runs.filter((run) => run.job_name === job.name);
      expect(mine.map((run) => [run.trigger, run.status, run.scheduled_at_ms]), job.name)
        .toEqual([0, 1, 2].map((slot) => ['schedule', 'ok', job.nextRunAtMs + slot * MINUTE]));
      for (const run of mine) expect(nodeIds).toContain(run.node_id);
    }
    // Nothing else ran (no second fire of a slot left queued or running, no other trigger).
    expect((await db.query('SELECT 1 FROM job_runs')).rowCount).toBe(60);

    // Each scripted fire ran once, in the process of the node the store says took that slot.
    for (const index of [0, 1]) {
      const pids = fs.readFileSync(path.join(scratch, `fires-${index}`), 'utf8').trim().split('\n');
      const takers = runs.filter((run) => run.job_name === `minutely-${index}`).map((run) => run.node_id);
      expect(pids.map((pid) => nodeOfPid.get(pid))).toEqual(takers);
    }
  });
});
