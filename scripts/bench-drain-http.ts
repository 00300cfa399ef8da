// End-to-end drain benchmark on one node: the built `switchboard gateway` (headless, as operators run
// it) takes N signed webhooks as fast as they come, and every one goes accepted -> run -> delivered
// to the `log` target. Two gateways alternate in rounds (dry-run, model over HTTP, dry-run, ...):
//   dry-run: no model call (the floor of a run);
//   http:    provider openai-compatible against a scripted Chat Completions server on loopback that
//            answers at once (test/fixtures/scripted-model.ts, in this process), so every run is one
//            real HTTP request through the AI SDK.
// runs/s = N / (time from the first request sent to the last delivery recorded), read through the
// control channel (`webhooks.counts`); the gateway's RSS is sampled throughout (VmRSS) and its peak
// is VmHWM; its CPU time (user + system) per webhook is read from /proc. Defaults: 2,000 webhooks, 5 rounds, the default max_concurrent_runs (4).
// `--baseline DIR`: another build (a checkout with its dist/ built) runs each mode just before this one
// in every round, so two builds are compared under the same load (the machine is shared); its rows say so.
// Usage: npm run -s build && npx tsx scripts/bench-drain-http.ts [--webhooks 2000] [--rounds 5] [--connections 20]
//   [--concurrency 4] [--cpu-prof DIR] [--node-args "<flags>"] [--baseline DIR] [--smoke] [--json FILE]
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { startScriptedModel, type ScriptedModel } from '../test/fixtures/scripted-model.js';
import { benchArgs, benchConfig, benchRequests, cliPath, formatSpread, peakRssMb, report, requireBuild, rssMb, spread, startGatewayProcess, waitFor, type BenchRow } from './bench-lib.js';

const args = benchArgs();
const webhooks = args.number('webhooks', 2000, 200);
const rounds = args.number('rounds', 5, 1);
const connections = args.number('connections', 20);
/** platforms.webhook.extra.max_concurrent_runs; the product's default is 4. */
const concurrency = args.number('concurrency', 4);
const profileDir = args.text('cpu-prof'); // a folder: each gateway writes a V8 CPU profile there on exit
/** Extra node flags for the gateway process, e.g. `--node-args=--max-semi-space-size=4` (experiments). */
const nodeArgs = (args.text('node-args') ?? '').split(' ').filter(Boolean);
const baseline = args.text('baseline');
requireBuild();
const builds = baseline ? [{ name: 'baseline', cli: path.resolve(baseline, 'dist/cli/main.js') }, { name: 'this build', cli: cliPath }] : [{ name: '', cli: cliPath }];

type Mode = 'dry-run' | 'http';
interface Round { build: string; mode: Mode; runsPerSecond: number; cpuMsPerRun: number; acceptSeconds: number; peakRssMb: number; maxSampledRssMb: number; failed: number }

async function drainRound(build: (typeof builds)[number], mode: Mode, model: ScriptedModel): Promise<Round> {
  const gateway = await startGatewayProcess(
    benchConfig(mode === 'http' ? { model: { provider: 'openai-compatible', base_url: model.url, name: 'bench-model', api_key: 'sk-bench' } } : {}, { max_concurrent_runs: concurrency }),
    [...nodeArgs, ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])],
    build.cli,
  );
  const pid = gateway.child.pid!;
  let maxSampledRssMb = rssMb(pid);
  const cpuBefore = cpuMs(pid);
  try {
    const started = performance.now();
    // When the store held every webhook (autocannon itself settles only on its next 1 s tick).
    let acceptSeconds = 0;
    const sending = autocannon({ url: `${gateway.url}/webhooks/bench`, amount: webhooks, connections, requests: benchRequests() }).then((result) => {
      const accepted = result.statusCodeStats?.['202']?.count ?? 0;
      if (accepted !== webhooks) throw new Error(`${accepted} of ${webhooks} webhooks were accepted (non-2xx ${result.non2xx}, errors ${result.errors})`);
    });
    let counts: Record<string, number> = {};
    await waitFor(async () => {
      maxSampledRssMb = Math.max(maxSampledRssMb, rssMb(pid));
      counts = ((await gateway.call('webhooks.counts')) ?? {}) as Record<string, number>;
      if (!acceptSeconds && Object.values(counts).reduce((sum, n) => sum + n, 0) >= webhooks) acceptSeconds = (performance.now() - started) / 1000;
      return (counts.delivered ?? 0) + (counts.failed ?? 0) + (counts.delivery_failed ?? 0) >= webhooks ? true : undefined;
    }, `${webhooks} ${mode} runs to be delivered`, 600_000, 20);
    const seconds = (performance.now() - started) / 1000;
    await sending;
    return { build: build.name, mode, runsPerSecond: webhooks / seconds, cpuMsPerRun: (cpuMs(pid) - cpuBefore) / webhooks, acceptSeconds, peakRssMb: peakRssMb(pid), maxSampledRssMb, failed: (counts.failed ?? 0) + (counts.delivery_failed ?? 0) };
  } finally {
    await gateway.stop();
  }
}

/**
 * The gateway's CPU time (user + system, all threads) in ms: per webhook it compares builds better
 * than runs/s when other work shares the machine (runs/s counts the time the gateway waited for a CPU).
 */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const model = await startScriptedModel([{ text: 'Reviewed: nothing to do.' }], { repeatLast: true });
const results: Round[] = [];
try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of ['dry-run', 'http'] as const) {
      for (const build of builds) {
        const result = await drainRound(build, mode, model);
        results.push(result);
        process.stderr.write(`round ${round + 1} ${build.name ? `${build.name} ` : ''}${mode}: ${result.runsPerSecond.toFixed(0)} runs/s, ${result.cpuMsPerRun.toFixed(2)} CPU ms/webhook, peak RSS ${result.peakRssMb.toFixed(0)} MB\n`);
      }
    }
  }
} finally {
  await model.close();
}
if (results.some((result) => result.failed > 0)) throw new Error(`some runs failed: ${JSON.stringify(results.map((result) => result.failed))}`);
const rows: BenchRow[] = builds.flatMap((build) => rowsOf(build.name, results.filter((result) => result.build === build.name)));

function rowsOf(name: string, of: Round[]): BenchRow[] {
  const label = name ? ` [${name}]` : '';
  const dry = of.filter((result) => result.mode === 'dry-run');
  const http = of.filter((result) => result.mode === 'http');
  const ratios = http.map((result, index) => result.runsPerSecond / dry[index]!.runsPerSecond);
  return [
    { measure: `drain${label}, dry-run model: runs/s (${webhooks} webhooks, accepted -> delivered to log)`, value: formatSpread(dry.map((r) => r.runsPerSecond)), target: '>= 1500', met: spread(dry.map((r) => r.runsPerSecond)).median >= 1500 },
    { measure: `drain${label}, model over HTTP (loopback, answers at once): runs/s`, value: formatSpread(http.map((r) => r.runsPerSecond)), target: '>= 1000', met: spread(http.map((r) => r.runsPerSecond)).median >= 1000 },
    { measure: `drain${label}, gateway CPU ms per webhook (intake + run + delivery), dry-run / HTTP`, value: `${formatSpread(dry.map((r) => r.cpuMsPerRun), 2)} / ${formatSpread(http.map((r) => r.cpuMsPerRun), 2)}` },
    { measure: `drain${label}, HTTP / dry-run runs/s ratio`, value: formatSpread(ratios, 2) },
    { measure: `drain${label}, dry-run: gateway peak RSS (VmHWM) MB`, value: formatSpread(dry.map((r) => r.peakRssMb)) },
    { measure: `drain${label}, model over HTTP: gateway peak RSS (VmHWM) MB`, value: formatSpread(http.map((r) => r.peakRssMb)), target: '< 150', met: Math.max(...http.map((r) => r.peakRssMb)) < 150 },
    { measure: `drain${label}: time to accept every webhook, dry-run / HTTP, s (median)`, value: `${spread(dry.map((r) => r.acceptSeconds)).median.toFixed(2)} / ${spread(http.map((r) => r.acceptSeconds)).median.toFixed(2)}` },
  ];
}
report(`End-to-end drain (bench-drain-http): ${rounds} alternating rounds, ${connections} connections, max_concurrent_runs ${concurrency}`, rows, args);
