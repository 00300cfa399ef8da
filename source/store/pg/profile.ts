import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/**
 * A measuring aid for the benchmarks (scripts/bench-cluster.ts `--profile`), off unless the
 * environment names a file in SWITCHBOARD_PG_PROFILE: per statement, the time spent waiting for a
 * pool connection and the round trip, plus the node's event-loop delay. SIGUSR2 writes what was
 * seen since the last SIGUSR2 to the file (JSON) and starts again, so a benchmark brackets a phase.
 */
export interface PgProfile {
  record(label: string, waitMs: number, roundTripMs: number): void;
}

const RESOLUTION_MS = 2;

interface Samples { wait: number[]; roundTrip: number[] }

export function pgProfileFromEnv(pool: string): PgProfile | undefined {
  const file = process.env.SWITCHBOARD_PG_PROFILE;
  if (!file) return undefined;
  let samples = new Map<string, Samples>();
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  let since = performance.now();
  process.on('SIGUSR2', () => {
    const seen = Object.fromEntries([...samples].map(([label, { wait, roundTrip }]) => [label, { count: wait.length, wait: summary(wait), roundTrip: summary(roundTrip) }]));
    // The histogram's figures include the timer's own interval: the delay is what lies beyond it.
    const beyond = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    const eventLoop = { meanMs: beyond(loop.mean), p99Ms: beyond(loop.percentile(99)), maxMs: beyond(loop.max) };
    const entry = { pid: process.pid, pool, seconds: (performance.now() - since) / 1000, eventLoop, statements: seen };
    fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
    samples = new Map();
    loop.reset();
    since = performance.now();
  });
  return {
    record(label, waitMs, roundTripMs) {
      let of = samples.get(label);
      if (!of) samples.set(label, (of = { wait: [], roundTrip: [] }));
      of.wait.push(waitMs);
      of.roundTrip.push(roundTripMs);
    },
  };
}

function summary(values: number[]): { mean: number; p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { mean: round(mean), p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}

const round = (value: number) => Math.round(value * 100) / 100;

/** A short label for a statement: the function it calls, or its verb and table. */
export function statementLabel(sql: string): string {
  const called = /SELECT (webhook_\w+)\(/.exec(sql)?.[1];
  if (called) return called;
  const words = sql.replace(/\s+/g, ' ').trim().split(' ');
  const table = /(?:INTO|UPDATE|FROM) (\w+)/.exec(sql)?.[1];
  return `${words[0]} ${table ?? ''}`.trim();
}
