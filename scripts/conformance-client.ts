/**
 * A conformance client built on our MCP layer (createMcpManager, the catalog, our transports), for
 * `@modelcontextprotocol/conformance client --command "npm run -s conformance:client --"`.
 * The suite appends the server URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. It connects, lists the registered tools and calls each one with
 * arguments made from its input schema; elicitation requests are accepted (declared defaults fill
 * the omitted fields, SEP-1034).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createToolRegistry } from '../source/agent/tool-registry.js';
import type { ApprovalRequester, ToolContext } from '../source/agent/types.js';
import { createMcpManager } from '../source/mcp/manager.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)';
if (!url || !/^https?:\/\//.test(url)) {
  process.stderr.write('usage: npm run -s conformance:client -- <server-url>\n');
  process.exit(2);
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-conformance-'));
const logger = pino({ level: process.env.CONFORMANCE_LOG ?? 'info' }, pino.destination(2));
const approvals: ApprovalRequester = { request: async () => ({ status: 'approved', values: {} }) };
const registry = createToolRegistry();
const manager = createMcpManager({ registry, logger, logsDir: path.join(home, 'logs'), mediaDir: path.join(home, 'media'), approvals, retry: false });

let code = 0;
try {
  await manager.start({ mcp_servers: { conformance: { url, connect_timeout: 30, timeout: 30 } } }, { wait: true });
  const [view] = manager.list();
  logger.info(`scenario ${scenario}: ${view?.status} (${view?.era ?? '-'} era) ${view?.reason ?? ''}`);
  if (view?.status !== 'ready') code = 1;
  const context: ToolContext = { runId: 'conformance', origin: 'conformance', signal: new AbortController().signal, requestApproval: async () => ({ status: 'approved' }) };
  for (const tool of registry.list()) {
    if (tool.source !== 'conformance' || /__(list|read|get)_(resources?|prompts?)$/.test(tool.name)) continue;
    try {
      const output = await tool.execute(argumentsFor(tool.inputSchema), context);
      logger.info(`${tool.name}: ${typeof output === 'string' ? output : output.text}`);
    } catch (error) {
      logger.warn(`${tool.name} failed: ${(error as Error).message}`);
    }
  }
} catch (error) {
  logger.error(`scenario ${scenario} failed: ${(error as Error).message}`);
  code = 1;
} finally {
  await manager.stop();
  fs.rmSync(home, { recursive: true, force: true });
}
process.exit(code);

function argumentsFor(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string; default?: unknown; enum?: unknown[] }>;
  const args: Record<string, unknown> = {};
  let n = 0;
  for (const [key, property] of Object.entries(properties)) {
    n += 1;
    if (property.default !== undefined) args[key] = property.default;
    else if (property.enum?.length) args[key] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') args[key] = n + 1;
    else if (property.type === 'boolean') args[key] = true;
    else if (property.type === 'array') args[key] = [];
    else if (property.type === 'object') args[key] = {};
    else args[key] = 'test';
  }
  return args;
}
