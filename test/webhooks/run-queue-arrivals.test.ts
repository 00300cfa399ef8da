import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DeliveryBackend } from '../../source/store/async-domains.js';
import { createFloodGate } from '../../source/webhooks/flood-gate.js';
import { createRunQueue } from '../../source/webhooks/run-queue.js';

describe('run queue arrivals', () => {
  it('counts an accepted webhook as an arrival for the flood gate, and deliveries moved from the intake journal not', async () => {
    const gate = createFloodGate();
    let arrivals = 0;
    const counted = { ...gate, arrival: () => { arrivals += 1; gate.arrival(); } };
    let claims = 0;
    const deliveries = {
      recover: async () => ({ requeued: 0, undelivered: [] }),
      claimQueued: async () => { claims += 1; return []; },
    } as unknown as DeliveryBackend;
    const queue = createRunQueue({
      deliveries, runAgent: async () => { throw new Error('no run expected'); }, deliver: async () => ({ ok: true, detail: '' }),
      maxConcurrentRuns: 2, logger: pino({ level: 'silent' }), now: Date.now, floodGate: counted,
    });
    await queue.start();
    queue.notify();
    queue.wake();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(arrivals).toBe(1);
    expect(claims).toBeGreaterThanOrEqual(2); // both woke the queue: start's pump, then the one pump of that turn
    await queue.stop();
  });

  it('claims nothing at a run\'s end when nothing came since a claim found the queue empty, and claims again when a claim missed an arrival', async () => {
    const queued: number[] = [];
    let claims = 0;
    let release: (() => void) | undefined;
    const row = (seq: number) => ({ seq, route: 'gh', event: 'push', deliveryId: `d-${seq}`, prompt: 'p', skills: [], target: 'log', targetExtra: {}, replayOf: null, runId: null, runStatus: null, output: null, error: null, startedAtMs: 1 });
    const deliveries = {
      recover: async () => ({ requeued: 0, undelivered: [] }),
      // The claim reads the queue when it starts and answers when `release` says (a round trip).
      claimQueued: async (_now: number, limit: number) => {
        claims += 1;
        const taken = queued.splice(0, limit);
        if (claims === 3) await new Promise<void>((resolve) => { release = resolve; });
        return taken.map(row);
      },
      finish: async () => true,
    } as unknown as DeliveryBackend;
    const ran: string[] = [];
    const queue = createRunQueue({
      deliveries, deliver: async () => ({ ok: true, detail: '' }), maxConcurrentRuns: 4, logger: pino({ level: 'silent' }), now: Date.now,
      runAgent: async (request) => { ran.push(request.origin); return { runId: `r-${ran.length}`, status: 'ok', output: 'done', steps: 1, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, startedAtMs: 1, finishedAtMs: 2 }; },
    });
    const settle = async () => { for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve)); };
    await queue.start(); // claim 1: empty
    await settle();
    queued.push(1);
    queue.notify(); // claim 2: takes it (fewer than asked: the queue is drained)
    await settle();
    expect(ran).toEqual(['webhook:gh:d-1']);
    expect(claims).toBe(2); // the run's end claimed nothing: nothing came since
    queue.notify(); // claim 3: finds nothing, and answers late
    await settle();
    queued.push(2);
    queue.notify(); // came while claim 3 was out (which read the queue before it)
    release!();
    await settle();
    expect(claims).toBe(4);
    expect(ran).toEqual(['webhook:gh:d-1', 'webhook:gh:d-2']);
    await queue.stop();
  });
});
