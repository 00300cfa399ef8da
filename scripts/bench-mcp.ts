/**
 * MCP layer benchmark: `npx tsx scripts/bench-mcp.ts [--rounds 20] [--calls 500] [--warm-up 2000] [--servers 10] [--smoke] [--json FILE]`.
 * 1. Wall time to connect N stdio server-everything instances at once through createMcpManager.
 * 2. Per-call cost of the `echo` tool: a bare SDK client (SDK stdio transport, tools listed,
 *    client.callTool) vs our layer (registered ToolDefinition.execute: catalog, our stdio transport,
 *    result conversion), sequential calls on one server each. Each round starts a fresh pair of
 *    servers (see below why), warms both up, then times one block of each (the order flips every
 *    round). Target: the median round's ratio at most 1.10. Wall-clock figures swing with machine
 *    load; the client-process CPU ratio is the steadier one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { pino } from 'pino';
import { createToolRegistry } from '../source/agent/tool-registry.js';
import type { ToolContext } from '../source/agent/types.js';
import { createMcpManager } from '../source/mcp/manager.js';
import { benchArgs, formatSpread, report, spread, type BenchRow } from './bench-lib.js';

const args = benchArgs();
const rounds = args.number('rounds', 20, 2);
const block = args.number('calls', 500, 50);
const serverCount = args.number('servers', 10, 2);
const everything = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
const logger = pino({ level: 'silent' });
const entry = { command: process.execPath, args: [everything, 'stdio'] };
const makeManager = () => createMcpManager({ registry: createToolRegistry(), logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'media'), retry: false });

const rows: BenchRow[] = [];

// 1. Connect N servers at once (three rounds, median).
const connectTimes: number[] = [];
for (let round = 0; round < 3; round++) {
  const manager = makeManager();
  const started = performance.now();
  await manager.start({ mcp_servers: Object.fromEntries(Array.from({ length: serverCount }, (_, i) => [`s${i}`, entry])) }, { wait: true });
  connectTimes.push(performance.now() - started);
  const ready = manager.list().filter((v) => v.status === 'ready').length;
  if (ready !== serverCount) throw new Error(`only ${ready} of ${serverCount} servers became ready`);
  await manager.stop();
}
rows.push({ measure: `MCP: connect ${serverCount} stdio servers at once, ms`, value: formatSpread(connectTimes) });

// 2. Per round, a fresh pair: a bare SDK client and our layer, each on its own server-everything
// process, started in alternating order, warmed up alike, then timed in alternating blocks. Two
// server processes are not equally fast (where the kernel places each and its pipe partner on the 2
// CPUs moves a call's wall time by up to 40%, measured: our client object against our layer on the
// same server process differs by a few µs, two clients on two processes by up to 60 µs), so a pair
// kept for the whole run measures its processes, not the layers; fresh pairs make that a random
// factor that the median over rounds evens out.
const ratios: number[] = [];
const cpuRatios: number[] = [];
const bareBlocks: number[] = [];
const oursBlocks: number[] = [];
// Warm-up to steady state: per-call time falls for the first 2,000-3,000 calls (JIT of both stacks, the server's too).
const warmUp = args.number('warm-up', 2000, 50);
const echoArgs = { message: 'hello' };
for (let round = 0; round < rounds; round++) {
  let bare: Side;
  let ours: Side;
  if (round % 2 === 0) {
    bare = await startBare();
    ours = await startOurs();
  } else {
    ours = await startOurs();
    bare = await startBare();
  }
  try {
    for (let i = 0; i < warmUp; i++) {
      await bare.call();
      await ours.call();
    }
    const measured = async (call: () => Promise<unknown>) => {
      const cpu = process.cpuUsage();
      const ms = await timeCalls(call, block);
      return { perCallMs: ms / block, cpuMs: cpuMs(process.cpuUsage(cpu)) };
    };
    const first = round % 2 === 0 ? await measured(bare.call) : await measured(ours.call);
    const second = round % 2 === 0 ? await measured(ours.call) : await measured(bare.call);
    const [bareRun, oursRun] = round % 2 === 0 ? [first, second] : [second, first];
    bareBlocks.push(bareRun.perCallMs);
    oursBlocks.push(oursRun.perCallMs);
    ratios.push(oursRun.perCallMs / bareRun.perCallMs);
    cpuRatios.push(oursRun.cpuMs / bareRun.cpuMs);
  } finally {
    await bare.close();
    await ours.close();
  }
}

interface Side { call(): Promise<unknown>; close(): Promise<void> }

/** The bare SDK client: the SDK's stdio transport, tools listed once (as any agent does before calling). */
async function startBare(): Promise<Side> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'ignore' }));
  await client.listTools();
  return { call: () => client.callTool({ name: 'echo', arguments: echoArgs }), close: () => client.close() };
}

/** Our layer: the registered tool's execute (catalog, our stdio transport, result conversion). */
async function startOurs(): Promise<Side> {
  const registry = createToolRegistry();
  const manager = createMcpManager({ registry, logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'media'), retry: false });
  await manager.start({ mcp_servers: { e: entry } }, { wait: true });
  const tool = registry.get('mcp__e__echo');
  if (!tool) throw new Error('mcp__e__echo was not registered');
  const context: ToolContext = { runId: 'bench', origin: 'bench', signal: new AbortController().signal, requestApproval: async () => ({ status: 'approved' }) };
  return { call: () => tool.execute(echoArgs, context), close: () => manager.stop() };
}

rows.push({ measure: `MCP echo call, bare SDK client: µs per call (${rounds} rounds of ${block} calls, a fresh pair of servers each)`, value: formatSpread(bareBlocks.map((ms) => ms * 1000)) });
rows.push({ measure: 'MCP echo call, our layer: µs per call', value: formatSpread(oursBlocks.map((ms) => ms * 1000)) });
rows.push({ measure: 'MCP tool-call overhead: ours / bare SDK client, wall time per round', value: formatSpread(ratios, 3), target: '<= 1.10', met: spread(ratios).median <= 1.1 });
rows.push({ measure: 'MCP tool-call overhead: ours / bare, client-process CPU per round', value: formatSpread(cpuRatios, 3) });
fs.rmSync(home, { recursive: true, force: true });
report('MCP layer (bench-mcp)', rows, args);

async function timeCalls(fn: () => Promise<unknown>, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await fn();
  return performance.now() - started;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

