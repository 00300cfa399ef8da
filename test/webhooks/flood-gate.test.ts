import type { EventLoopUtilization } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createFloodGate } from '../../source/webhooks/flood-gate.js';

/** A fake event loop: `spend(ms, busyShare)` advances its clock and its busy/idle counters. */
function fakeLoop() {
  let idle = 0;
  let active = 0;
  const utilization = (previous?: EventLoopUtilization): EventLoopUtilization => {
    const di = idle - (previous?.idle ?? 0);
    const da = active - (previous?.active ?? 0);
    return { idle: di, active: da, utilization: di + da === 0 ? 0 : da / (di + da) };
  };
  return {
    utilization,
    now: () => idle + active,
    spend(ms: number, busyShare: number) {
      active += ms * busyShare;
      idle += ms * (1 - busyShare);
    },
  };
}

describe('flood gate', () => {
  it('holds run starts to one per 100 ms while webhooks arrive and the loop is saturated', () => {
    const loop = fakeLoop();
    const gate = createFloodGate(loop);
    for (let i = 0; i < 50; i += 1) gate.arrival();
    loop.spend(100, 0.97);
    expect(gate.mayStartRun()).toBe(true); // judged flooded, but no run started for a window
    expect(gate.flooded()).toBe(true); // so the queue claims one run, not one per free slot
    gate.started();
    gate.arrival();
    loop.spend(30, 1);
    expect(gate.mayStartRun()).toBe(false);
    loop.spend(75, 1);
    expect(gate.mayStartRun()).toBe(true);
  });

  it('never holds runs back at a steady rate, nor while a backlog drains with no webhooks arriving', () => {
    const steady = fakeLoop();
    const gate = createFloodGate(steady);
    for (let i = 0; i < 50; i += 1) gate.arrival();
    steady.spend(100, 0.5);
    for (let i = 0; i < 5; i += 1) {
      expect(gate.mayStartRun()).toBe(true);
      expect(gate.flooded()).toBe(false);
      gate.started();
    }

    const draining = fakeLoop();
    const drainGate = createFloodGate(draining);
    draining.spend(100, 1); // saturated by runs alone
    for (let i = 0; i < 5; i += 1) {
      expect(drainGate.mayStartRun()).toBe(true);
      drainGate.started();
    }
  });

  it('counts a burst at the intake as a flood when the loop is not saturated (a machine short of CPU)', () => {
    const loop = fakeLoop();
    let bursting = true;
    const gate = createFloodGate({ ...loop, bursting: () => bursting });
    for (let i = 0; i < 50; i += 1) gate.arrival();
    loop.spend(100, 0.6); // the loop waits for a CPU as often as for work
    expect(gate.flooded()).toBe(true);
    gate.started();
    gate.arrival();
    loop.spend(30, 0.6);
    expect(gate.mayStartRun()).toBe(false);

    bursting = false; // the burst is over: runs start again at once, not a window later
    expect(gate.flooded()).toBe(false);
    expect(gate.mayStartRun()).toBe(true);
    loop.spend(100, 0.6);
    expect(gate.flooded()).toBe(false);
  });
});
