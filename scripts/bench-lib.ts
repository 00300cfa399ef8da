// Shared by the benchmark scripts: options, statistics in rounds, the machine's load, and one
// output format (a markdown table on stdout; with `--json FILE`, the rows for scripts/bench.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import type { PacedRequest } from './paced-load.js';

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
  // `--name value` or `--name=value` (a value that starts with `--`, as node flags do, needs the second form).
  const text = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    if (at >= 0) return argv[at + 1];
    return argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
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

export const repoRoot = path.resolve(import.meta.dirname, '..');
export const cliPath = path.join(repoRoot, 'dist/cli/main.js');

/**
 * The Node flags on a build's shebang (`#!/usr/bin/env -S node <flags>`, source/cli/main.ts): what
 * the `switchboard` bin runs with, so the benchmarks start the CLI as operators do.
 */
export function binNodeFlags(cli = cliPath): string[] {
  const first = fs.readFileSync(cli, 'utf8').split('\n', 1)[0] ?? '';
  return /^#!\/usr\/bin\/env -S node\b(.*)$/.exec(first)?.[1]!.trim().split(/\s+/).filter(Boolean) ?? [];
}

export function requireBuild(): void {
  if (!fs.existsSync(cliPath)) throw new Error('dist/ is missing: run npm run -s build first');
}

/** A signed GitHub-style webhook for route `bench`, with a fresh delivery id per request (autocannon). */
export const BENCH_SECRET = 'bench-secret-0123456789abcdef';
export const BENCH_BODY = JSON.stringify({ action: 'opened', number: 42, repository: { full_name: 'octo/bench' }, pull_request: { title: 'Benchmark', user: { login: 'octocat' } } });
export const BENCH_SIGNATURE = `sha256=${createHmac('sha256', BENCH_SECRET).update(BENCH_BODY).digest('hex')}`;
const BENCH_HEADERS = { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': BENCH_SIGNATURE };

export function benchRequests(): autocannon.Request[] {
  return [{
    method: 'POST', body: BENCH_BODY,
    headers: BENCH_HEADERS,
    setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-github-delivery': randomUUID() } }),
  }];
}

/** One signed `bench` webhook for scripts/paced-load.ts: the request benchRequests() makes, with a fresh delivery id. */
export function benchPacedRequest(): PacedRequest {
  return {
    path: '/webhooks/bench', body: BENCH_BODY,
    headers: { ...BENCH_HEADERS, 'x-github-delivery': randomUUID() },
  };
}

/** The config of a benchmark home: the `bench` route (dry-run model, `log` target, rate limit raised) plus `extra`. */
export function benchConfig(extra: Record<string, unknown> = {}, webhook: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...extra,
    platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, rate_limit: 1_000_000_000, ...webhook, routes: { bench: {
      secret: BENCH_SECRET, events: ['pull_request'], prompt: 'PR #{number} {pull_request.title} by {pull_request.user.login}', deliver: 'log' } } } } },
  };
}

export interface GatewayProcess {
  child: ChildProcess;
  home: string;
  /** The listener's base URL. */
  url: string;
  /** `domain.verb` through the control socket. */
  call(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** SIGTERM and wait (`kill: true`: SIGKILL, for a gateway with a backlog nobody waits for); removes the home. */
  stop(options?: { kill?: boolean }): Promise<void>;
}

/**
 * `switchboard gateway` (headless, as operators run it) on a fresh home with `config`; resolves
 * once its listener and control socket answer. Its stderr lines are read and dropped, as a terminal
 * or journald would take them. `nodeArgs`: e.g. `--cpu-prof --cpu-prof-dir DIR`; `cli`: another build's dist/cli/main.js;
 * `env`: added to the environment (e.g. SWITCHBOARD_DATABASE_URL for a cluster node).
 */
export async function startGatewayProcess(config: Record<string, unknown>, nodeArgs: string[] = [], cli = cliPath, extraEnv: NodeJS.ProcessEnv = {}): Promise<GatewayProcess> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-gw-'));
  const home = path.join(work, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [...binNodeFlags(cli), ...nodeArgs, cli, 'gateway', '--home', home], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (options: { kill?: boolean } = {}) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(options.kill ? 'SIGKILL' : 'SIGTERM');
    await exited;
    fs.rmSync(work, { recursive: true, force: true });
  };
  try {
    const url = await waitFor<string>(() => {
      if (child.exitCode !== null) throw new Error(`switchboard gateway exited (${child.exitCode}) before listening`);
      try {
        return (JSON.parse(fs.readFileSync(path.join(home, 'gateway.lock'), 'utf8')) as { webhookUrl?: string }).webhookUrl;
      } catch {
        return undefined;
      }
    }, 'the gateway to listen', 60_000, 20);
    const { connectControl } = (await import(pathToFileURL(path.join(repoRoot, 'dist/control/client.js')).href)) as typeof import('../source/control/client.js');
    // The lock names the listener before the control socket opens: dial until it answers.
    const client = await waitFor(() => connectControl({ socketPath: path.join(home, 'control.sock') }).catch(() => undefined), 'the control socket', 10_000, 20);
    return {
      child, home, url,
      call: (method, params = {}) => client.call(method, params),
      stop: async (options) => {
        await client.close();
        await stop(options);
      },
    };
  } catch (error) {
    await stop({ kill: true });
    throw error;
  }
}
