/**
 * MCP layer benchmark: `npx tsx scripts/bench-mcp.ts [calls=1000] [servers=10]`.
 * 1. Wall time to connect N stdio server-everything instances at once through createMcpManager.
 * 2. Per-call cost of the `echo` tool: a bare SDK client (SDK stdio transport, client.callTool) vs
 *    our layer (registered ToolDefinition.execute: catalog, our stdio transport, result conversion),
 *    sequential calls on one server each, in alternating blocks of 100. Target ratio: at most 1.15.
 *    Wall-clock figures swing with machine load; the client-process CPU ratio is the steady one.
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

const calls = Number(process.argv[2] ?? 1000);
const serverCount = Number(process.argv[3] ?? 10);
const everything = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
const logger = pino({ level: 'silent' });
const entry = { command: process.execPath, args: [everything, 'stdio'] };
const makeManager = () => createMcpManager({ registry: createToolRegistry(), logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'media'), retry: false });

const rows: Array<[string, string]> = [];

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
rows.push([`connect ${serverCount} stdio servers at once (median of 3)`, `${median(connectTimes).toFixed(0)} ms`]);

// 2. Both clients connected side by side; calls run in alternating blocks of 100 so machine noise
// and JIT warm-up hit both sides alike.
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
for (let i = 0; i < 200; i++) {
  await callBare();
  await callOurs();
}
let bareCpu = 0;
let oursCpu = 0;
const bareBlocks: number[] = [];
const oursBlocks: number[] = [];
const block = 100;
for (let done = 0; done < calls; done += block) {
  const count = Math.min(block, calls - done);
  let cpu = process.cpuUsage();
  bareBlocks.push((await timeCalls(callBare, count)) / count);
  bareCpu += cpuMs(process.cpuUsage(cpu));
  cpu = process.cpuUsage();
  oursBlocks.push((await timeCalls(callOurs, count)) / count);
  oursCpu += cpuMs(process.cpuUsage(cpu));
}
const bareMs = bareBlocks.reduce((a, b) => a + b, 0) * block;
const oursMs = oursBlocks.reduce((a, b) => a + b, 0) * block;
await bare.close();
await ours.stop();

rows.push([`bare SDK client: ${calls} echo calls`, `${bareMs.toFixed(0)} ms total, median block ${(median(bareBlocks) * 1000).toFixed(0)} µs/call`]);
rows.push([`our layer: ${calls} echo calls`, `${oursMs.toFixed(0)} ms total, median block ${(median(oursBlocks) * 1000).toFixed(0)} µs/call`]);
rows.push([`client-process CPU per call, bare / ours`, `${((bareCpu / calls) * 1000).toFixed(0)} / ${((oursCpu / calls) * 1000).toFixed(0)} µs`]);
rows.push(['ratio ours / bare, client CPU', (oursCpu / bareCpu).toFixed(3)]);
rows.push(['ratio ours / bare, totals', (oursMs / bareMs).toFixed(3)]);
rows.push(['ratio ours / bare, median blocks (target <= 1.15)', (median(oursBlocks) / median(bareBlocks)).toFixed(3)]);

rows.push(['machine load average (1 min) at the end', `${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`]);
fs.rmSync(home, { recursive: true, force: true });
const width = Math.max(...rows.map(([k]) => k.length));
console.log(`| ${'measure'.padEnd(width)} | value |`);
console.log(`|${'-'.repeat(width + 2)}|-------|`);
for (const [k, v] of rows) console.log(`| ${k.padEnd(width)} | ${v} |`);

async function timeCalls(fn: () => Promise<unknown>, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await fn();
  return performance.now() - started;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
