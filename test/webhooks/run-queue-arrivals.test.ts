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
});
