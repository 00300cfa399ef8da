// `npm run bench`: every benchmark script, one after another, and one table of what they measured
// against the issue's targets, written to docs/benchmarks.md with the machine, Node version, date,
// load average and command. Builds first when dist/ is older than source/.
// Usage: npm run -s bench [-- --smoke] [-- --only webhooks,cli] [-- --load 2] [-- --out FILE]
//   --smoke: a few seconds per benchmark, targets not checked, no file written unless --out is given
//            (what CI runs: it shows every benchmark still works). A smoke run that fails is run once
//            more, and its rows then say what failed the first time: one rare flake under CI's load
//            (a wait timing out) shows in the table without failing the build; failing twice does.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchArgs, loadAverage, repoRoot, type BenchRow } from './bench-lib.js';

interface Benchmark {
  name: string;
  script: string;
  args?: string[];
  /** A script that checks its targets exits 1 when one is missed; its rows count all the same. */
  exitsOnMissedTarget?: boolean;
  timeoutMs: number;
}

const args = benchArgs();
const smoke = args.smoke;
const only = args.text('only')?.split(',');
const load = args.number('load', 2);
const out = args.text('out') ?? (smoke ? undefined : path.join(repoRoot, 'docs/benchmarks.md'));

const benchmarks: Benchmark[] = [
  { name: 'cli', script: 'bench-cli.ts', timeoutMs: 10 * 60_000 },
  { name: 'webhooks', script: 'bench-webhooks.ts', args: smoke ? [] : ['--load', String(load)], timeoutMs: 20 * 60_000 },
  { name: 'drain-http', script: 'bench-drain-http.ts', timeoutMs: 20 * 60_000 },
  { name: 'cluster', script: 'bench-cluster.ts', timeoutMs: 30 * 60_000 },
  { name: 'mcp', script: 'bench-mcp.ts', timeoutMs: 10 * 60_000 },
  { name: 'scheduler', script: 'bench-scheduler.ts', timeoutMs: 10 * 60_000 },
  { name: 'console', script: 'bench-console.ts', exitsOnMissedTarget: true, timeoutMs: 10 * 60_000 },
  { name: 'attach', script: 'bench-attach.ts', exitsOnMissedTarget: true, timeoutMs: 10 * 60_000 },
].filter((bench) => fs.existsSync(path.join(repoRoot, 'scripts', bench.script)) && (!only || only.includes(bench.name)));

buildIfStale();
const started = new Date();
const loadAtStart = loadAverage();
const results: Array<{ bench: Benchmark; rows: BenchRow[]; seconds: number; error?: string }> = [];
for (const bench of benchmarks) {
  const begun = performance.now();
  process.stderr.write(`\n== ${bench.script}${smoke ? ' --smoke' : ''}\n`);
  try {
    results.push({ bench, rows: await runSmokeTwice(bench), seconds: (performance.now() - begun) / 1000 });
  } catch (error) {
    results.push({ bench, rows: [], seconds: (performance.now() - begun) / 1000, error: (error as Error).message });
  }
}

const table = [
  '| benchmark | measure | value | target | met |',
  '|---|---|---|---|---|',
  ...results.flatMap(({ bench, rows, error }) => error
    ? [`| ${bench.name} | (the benchmark failed) | ${oneLine(error)} | | no |`]
    : rows.map((row) => `| ${bench.name} | ${row.measure} | ${row.value} | ${row.target ?? ''} | ${smoke || row.met === undefined ? '' : row.met ? 'yes' : 'no'} |`)),
].join('\n');
console.log(`\n${table}\n`);
for (const { bench, seconds } of results) process.stderr.write(`${bench.name}: ${seconds.toFixed(1)} s\n`);
if (out) {
  fs.writeFileSync(out, document(table));
  process.stderr.write(`wrote ${path.relative(repoRoot, out)}\n`);
}
if (results.some((result) => result.error)) process.exitCode = 1;

/** A smoke run that fails runs once more; its first row then names the first failure. */
async function runSmokeTwice(bench: Benchmark): Promise<BenchRow[]> {
  if (!smoke) return run(bench);
  try {
    return await run(bench);
  } catch (error) {
    process.stderr.write(`\n== ${bench.script} --smoke failed (${(error as Error).message}); once more\n`);
    const rows = await run(bench);
    return [{ measure: '(smoke: failed once, then ran)', value: oneLine((error as Error).message) }, ...rows];
  }
}

/** Runs one benchmark script under tsx; its rows. */
function run(bench: Benchmark): Promise<BenchRow[]> {
  const jsonFile = path.join(os.tmpdir(), `switchboard-bench-${process.pid}-${bench.name}.json`);
  const argv = ['--import', 'tsx', path.join(repoRoot, 'scripts', bench.script), ...(smoke ? ['--smoke'] : []), ...(bench.args ?? []), '--json', jsonFile];
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => process.stdout.write(chunk));
    // The tail of its stderr goes into the table's row when it fails: a CI log may show only the table.
    let stderrTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), bench.timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      try {
        if (code !== 0 && !(code === 1 && bench.exitsOnMissedTarget)) throw new Error(`${bench.script} exited ${code ?? signal}${failureOf(stderrTail)}`);
        if (!fs.existsSync(jsonFile)) throw new Error(`${bench.script} exited ${code ?? signal} without its rows`);
        const { rows } = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as { rows: BenchRow[] };
        fs.rmSync(jsonFile, { force: true });
        resolve(rows);
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

/** The error a failed benchmark printed (its first `Error:` line and what follows, else its last lines), for the table. */
function failureOf(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trimEnd()).filter(Boolean);
  const first = lines.findIndex((line) => /^\w*Error: /.test(line));
  const shown = (first >= 0 ? lines.slice(first, first + 12) : lines.slice(-6)).join(' / ');
  return shown ? `: ${shown}` : '';
}

function buildIfStale(): void {
  const built = path.join(repoRoot, 'dist/cli/main.js');
  const newest = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const file = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(file) : fs.statSync(file).mtimeMs);
  }, 0);
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= Math.max(newest(path.join(repoRoot, 'source')), fs.statSync(path.join(repoRoot, 'config.schema.json')).mtimeMs)) return;
  process.stderr.write('dist/ is older than source/: npm run build\n');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: repoRoot, stdio: 'inherit' });
}

function document(rows: string): string {
  const cpus = os.cpus();
  return `# Benchmarks

Written by \`npm run bench\` (scripts/bench.ts); each row comes from one script in \`scripts/\`, whose
header says what it measures and how. Figures from a shared machine move with its load: read them
against the load average, and ratios (alternating rounds in one run) rather than absolute rates.
Earlier runs and one-off measurements are in [history.md](history.md); profiles, flame graphs and what
moved each figure in [perf/](perf/); the cluster benchmark's latest run in [cluster.md](cluster.md#benchmark).

| | |
|---|---|
| machine | ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.platform()} ${os.release()} |
| Node | ${process.version} |
| date | ${started.toISOString()} |
| command | \`npm run -s bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` |
| load average (1, 5, 15 min) | ${loadAtStart} at the start, ${loadAverage()} at the end |

${rows}
`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '\\|').slice(0, 2000);
}
