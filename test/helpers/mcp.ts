import { afterEach } from 'vitest';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createToolRegistry } from '../../source/agent/tool-registry.js';
import type { ApprovalInput, ApprovalOutcome, ApprovalRequester, ToolContext, ToolOutput, ToolRegistry } from '../../source/agent/types.js';
import type { ConfigFile, McpServerConfig } from '../../source/config/types.js';
import { createMcpManager, type McpManagerDeps } from '../../source/mcp/manager.js';

const require = createRequire(import.meta.url);
export const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));
export const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
export const FILESYSTEM = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
export const NODE = process.execPath;

/** The agent runtime's real registry. */
export function mapRegistry(): ToolRegistry {
  return createToolRegistry();
}

/** An approval queue that answers from a script and records what it was asked. */
export function scriptedApprovals(answer: (input: ApprovalInput) => ApprovalOutcome | Promise<ApprovalOutcome>) {
  const asked: ApprovalInput[] = [];
  const requester: ApprovalRequester = {
    async request(input, signal) {
      asked.push(input);
      if (signal?.aborted) return { status: 'cancelled' };
      return await new Promise<ApprovalOutcome>((resolve) => {
        signal?.addEventListener('abort', () => resolve({ status: 'cancelled' }), { once: true });
        void Promise.resolve(answer(input)).then(resolve);
      });
    },
  };
  return { requester, asked };
}

export function toolContext(approvals?: ApprovalRequester, signal?: AbortSignal): ToolContext {
  return {
    runId: 'test-run',
    origin: 'test',
    signal: signal ?? new AbortController().signal,
    requestApproval: (input) => (approvals ? approvals.request({ ...input, origin: 'test' }) : Promise.resolve({ status: 'denied', reason: 'no approvals in this test' })),
  };
}

export async function call(registry: ToolRegistry, name: string, args: Record<string, unknown> = {}, context: ToolContext = toolContext()): Promise<ToolOutput> {
  const tool = registry.get(name);
  if (!tool) throw new Error(`no tool ${name}; registered: ${registry.list().map((t) => t.name).join(', ')}`);
  const out = await tool.execute(args, context);
  return typeof out === 'string' ? { text: out } : out;
}

export function makeManager(home: string, extra: Partial<McpManagerDeps> = {}) {
  const registry = extra.registry ?? mapRegistry();
  const logger = pino({ level: process.env.TEST_LOG ? 'debug' : 'silent' });
  const manager = createMcpManager({ registry, logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'mcp-media'), retry: false, ...extra });
  return { manager, registry };
}

export function servers(entries: Record<string, McpServerConfig>): ConfigFile {
  return { mcp_servers: entries };
}

/** Polls until `check` returns a truthy value. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A free loopback port (bound and released). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a child process and resolves when its output matches `ready`; returns a stopper. */
export async function startProcess(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}) {
  const { spawn } = await import('node:child_process');
  const child = spawn(NODE, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${args.join(' ')} not ready: ${seen}`)), 20_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = ready.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited with ${code}: ${seen}`)));
  });
  return {
    match,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(); // ended (a killed child has no exit code)
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }),
  };
}

const startedManagers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of startedManagers.splice(0)) await stop();
});

/** A manager over a temp home, stopped after the test. */
export function startedManager(home: string, extra: Partial<McpManagerDeps> = {}) {
  const made = makeManager(home, extra);
  startedManagers.push(() => made.manager.stop());
  return made;
}
