// Where a server's CPU goes by thread (Linux /proc): the event loop, V8's helper threads (GC), libuv's
// pool and worker threads, for the listener and the floor over the same load. The intake benchmark
// counts every thread; this shows which of them a change moved. Threads are told apart by start order
// (the first is the event loop; Node names them all `node`).
// Usage: npm run -s build && npx tsx scripts/thread-cpu.ts [--seconds 5] [--connections 50] [--node-args "<listener's extra node flags>"]
import fs from 'node:fs';
import autocannon from 'autocannon';
import { startFloor, stopFloor } from './bench-floor.js';
import { benchArgs, benchConfig, benchRequests, requireBuild, startGatewayProcess } from './bench-lib.js';

const args = benchArgs();
const seconds = args.number('seconds', 5, 1);
const connections = args.number('connections', 50, 10);
/** Extra node flags for the listener, e.g. `--node-args=--max-semi-space-size=16` (experiments). */
const nodeArgs = (args.text('node-args') ?? '').split(' ').filter(Boolean);
requireBuild();

/** CPU ms so far of each thread, keyed by thread id, in start order. */
function threadCpuMs(pid: number): Map<number, number> {
  const byThread = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`).map(Number).sort((a, b) => a - b)) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      byThread.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime, USER_HZ 100
    } catch {
      // the thread ended meanwhile
    }
  }
  return byThread;
}

/** µs of CPU per accepted request: the event loop, the other threads each, and all of them. */
async function measure(url: string, pid: number): Promise<{ rate: number; loop: number; others: number[]; all: number }> {
  await autocannon({ url: `${url}/webhooks/bench`, duration: 1, connections: 10, requests: benchRequests() }); // warm-up
  const before = threadCpuMs(pid);
  const result = await autocannon({ url: `${url}/webhooks/bench`, duration: seconds, connections, requests: benchRequests() });
  const after = threadCpuMs(pid);
  const accepted = result.statusCodeStats?.['202']?.count ?? 0;
  const perRequest = [...after].map(([tid, ms]) => ((ms - (before.get(tid) ?? 0)) * 1000) / Math.max(accepted, 1));
  return { rate: accepted / seconds, loop: perRequest[0]!, others: perRequest.slice(1).filter((us) => us > 0), all: perRequest.reduce((sum, us) => sum + us, 0) };
}

const floor = await startFloor([]);
const floorCost = await measure(floor.url, floor.child.pid!).finally(() => stopFloor(floor));
const gateway = await startGatewayProcess(benchConfig(), nodeArgs);
const listenerCost = await measure(gateway.url, gateway.child.pid!).finally(() => gateway.stop({ kill: true }));

const row = (name: string, cost: typeof floorCost) =>
  `| ${name} | ${cost.rate.toFixed(0)} | ${cost.loop.toFixed(1)} | ${cost.others.map((us) => us.toFixed(1)).join(' + ') || '-'} | ${cost.all.toFixed(1)} |`;
console.log(`CPU µs per accepted request by thread (${connections} connections, ${seconds} s)\n`);
console.log('| server | req/s | event loop | other threads | all |\n|---|---:|---:|---|---:|');
console.log(row('floor', floorCost));
console.log(row('listener', listenerCost));
