import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRequest, RunResult } from '../../source/agent/types.js';
import { createDeliver } from '../../source/delivery/deliver.js';
import { sqliteBackends, type DeliveryBackend } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { createDeliveryStore } from '../../source/store/webhook-deliveries.js';
import { createRunQueue } from '../../source/webhooks/run-queue.js';
import { waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => void> = [];
afterEach(() => { for (const cleanup of cleanups.splice(0).reverse()) cleanup(); });
const logger = pino({ level: 'silent' });

describe('the run queue’s slots', () => {
  it('claims the next run while the last one’s final state is being written, never running more than max_concurrent_runs at once; a stop waits for that write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-run-slots-'));
    const store = openStore(path.join(dir, 'state.db'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }), () => store.close());
    const backends = sqliteBackends(store);
    // The final state of job 1 is held, as a slow round trip to PostgreSQL would hold it.
    let release: (() => void) | undefined;
    let first = 0;
    const deliveries: DeliveryBackend = {
      ...backends.deliveries,
      finish: async (row, ...rest) => {
        if (row.seq === first) await new Promise<void>((resolve) => (release = resolve));
        return backends.deliveries.finish(row, ...rest);
      },
    };
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const runAgent = async (request: RunRequest): Promise<RunResult> => {
      running += 1;
      most = Math.max(most, running);
      ran.push(request.prompt);
      const startedAtMs = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return { runId: randomUUID(), status: 'ok', output: `done: ${request.prompt}`, steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs, finishedAtMs: Date.now() };
    };
    const queue = createRunQueue({ deliveries, runAgent, deliver: createDeliver({ homeRoot: dir, logger }), maxConcurrentRuns: 1, logger, now: Date.now });
    for (const n of [1, 2, 3]) {
      const accepted = await backends.deliveries.accept({ route: 'q', deliveryId: `d${n}`, event: 'push', headers: {}, body: Buffer.from('{}'), prompt: `job ${n}`, skills: [], target: 'log', targetExtra: {}, receivedAtMs: Date.now() }, 60_000);
      if (n === 1 && accepted.kind === 'accepted') first = accepted.seq;
    }
    const state = (id: string) => createDeliveryStore(store).findByDeliveryId(id)!.state;

    await queue.start();
    await waitUntil(() => ran.length === 3 && state('d3') === 'delivered', 10_000, 'jobs 2 and 3 to run while the final state of job 1 is held');
    expect(ran).toEqual(['job 1', 'job 2', 'job 3']);
    expect(most).toBe(1);
    expect(state('d1')).toBe('running');

    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release!();
    await stopping;
    expect(['d1', 'd2', 'd3'].map(state)).toEqual(['delivered', 'delivered', 'delivered']);
  });
});
