// Shared by the benchmark scripts: options, statistics in rounds, the machine's load, and one
// output format (a markdown table on stdout; with `--json FILE`, the rows for scripts/bench.ts).
import fs from 'node:fs';
import os from 'node:os';

/** One line of docs/benchmarks.md: what was measured, the figure, the target and whether it is met. */
export interface BenchRow {
  measure: string;
  value: string;
  target?: string;
  /** Left out in smoke runs and for figures without a target. */
  met?: boolean;
}

export interface BenchArgs {
  /** `--smoke`: a few seconds, to show the benchmark still runs; figures are not checked against targets. */
  smoke: boolean;
  number(name: string, normal: number, smoke?: number): number;
  flag(name: string): boolean;
  text(name: string): string | undefined;
}

export function benchArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const smoke = argv.includes('--smoke');
  const text = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    smoke,
    flag: (name) => argv.includes(`--${name}`),
    text,
    number(name, normal, smokeValue) {
      const given = text(name);
      if (given !== undefined) {
        const value = Number(given);
        if (!Number.isFinite(value)) throw new Error(`--${name} must be a number, got "${given}"`);
        return value;
      }
      return smoke && smokeValue !== undefined ? smokeValue : normal;
    },
  };
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('no values to summarise');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

/** `12.3 (min 10.1, max 15.0)` with the given decimals and unit. */
export function formatSpread(values: readonly number[], decimals = 0, unit = ''): string {
  const { median, min, max } = spread(values);
  return `${median.toFixed(decimals)}${unit} (min ${min.toFixed(decimals)}, max ${max.toFixed(decimals)}, ${values.length} rounds)`;
}

/** `/proc/loadavg`'s three averages, the figure to read every timing against on a shared machine. */
export function loadAverage(): string {
  return os.loadavg().map((value) => value.toFixed(2)).join(' ');
}

/** Peak resident set of a process (Linux VmHWM), in MB; 0 when it is gone. */
export function peakRssMb(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Current resident set of a process (Linux VmRSS), in MB; 0 when it is gone. */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Prints the rows as a markdown table and, with `--json FILE`, writes them for scripts/bench.ts. */
export function report(title: string, rows: BenchRow[], args: BenchArgs = benchArgs()): void {
  const withTargets = rows.some((row) => row.target);
  console.log(`\n${title} (load average ${loadAverage()} on ${os.cpus().length} CPUs, Node ${process.version}${args.smoke ? ', smoke run: targets not checked' : ''})\n`);
  console.log(withTargets ? '| measure | value | target | met |\n|---|---|---|---|' : '| measure | value |\n|---|---|');
  for (const row of rows) {
    const met = args.smoke || row.met === undefined ? '' : row.met ? 'yes' : 'no';
    console.log(withTargets ? `| ${row.measure} | ${row.value} | ${row.target ?? ''} | ${met} |` : `| ${row.measure} | ${row.value} |`);
  }
  const out = args.text('json');
  if (out) fs.writeFileSync(out, JSON.stringify({ title, loadAverage: loadAverage(), rows: args.smoke ? rows.map(({ met: _met, ...row }) => row) : rows }, undefined, 2));
}

/** Resolves when `check` returns a value (polled every `everyMs`), or rejects after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
