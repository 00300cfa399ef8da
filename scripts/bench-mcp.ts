/**
 * MCP layer benchmark: `npx tsx scripts/bench-mcp.ts [--rounds 10] [--calls 200] [--servers 10] [--smoke] [--json FILE]`.
 * 1. Wall time to connect N stdio server-everything instances at once through createMcpManager.
 * 2. Per-call cost of the `echo` tool: a bare SDK client (SDK stdio transport, client.callTool) vs
 *    our layer (registered ToolDefinition.execute: catalog, our stdio transport, result conversion),
 *    sequential calls on one server each, in alternating rounds (bare block, our block; the order
 *    flips every round). Target: the median round's ratio at most 1.10. Wall-clock figures swing with
 *    machine load; the client-process CPU ratio is the steadier one.
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
const rounds = args.number('rounds', 10, 2);
const block = args.number('calls', 200, 50);
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

// 2. Both clients connected side by side; calls run in alternating rounds so machine noise and JIT
// warm-up hit both sides alike.
const bare = new Client({ name: 'bench', version: '0' });
await bare.connect(new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'ignore' }));
const registry = createToolRegistry();
const ours = createMcpManager({ registry, logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'media'), retry: false });
await ours.start({ mcp_servers: { e: entry } }, { wait: true });
const tool = registry.get('mcp__e__echo');
if (!tool) throw new Error('mcp__e__echo was not registered');
const context: ToolContext = { runId: 'bench', origin: 'bench', signal: new AbortController().signal, requestApproval: async () => ({ status: 'approved' }) };
const callBare = () => bare.callTool({ name: 'echo', arguments: { message: 'hello' } });
const callOurs = () => tool.execute({ message: 'hello' }, context);
for (let i = 0; i < (args.smoke ? 50 : 200); i++) {
  await callBare();
  await callOurs();
}
const ratios: number[] = [];
const cpuRatios: number[] = [];
const bareBlocks: number[] = [];
const oursBlocks: number[] = [];
for (let round = 0; round < rounds; round++) {
  const measured = async (call: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    const ms = await timeCalls(call, block);
    return { perCallMs: ms / block, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  };
  const first = round % 2 === 0 ? await measured(callBare) : await measured(callOurs);
  const second = round % 2 === 0 ? await measured(callOurs) : await measured(callBare);
  const [bareRun, oursRun] = round % 2 === 0 ? [first, second] : [second, first];
  bareBlocks.push(bareRun.perCallMs);
  oursBlocks.push(oursRun.perCallMs);
  ratios.push(oursRun.perCallMs / bareRun.perCallMs);
  cpuRatios.push(oursRun.cpuMs / bareRun.cpuMs);
}
await bare.close();
await ours.stop();

rows.push({ measure: `MCP echo call, bare SDK client: µs per call (${rounds} rounds of ${block} calls)`, value: formatSpread(bareBlocks.map((ms) => ms * 1000)) });
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

