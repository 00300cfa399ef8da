/**
 * A conformance client built on our MCP layer (createMcpManager, the catalog, our transports), for
 * `@modelcontextprotocol/conformance client --command "npm run -s conformance:client --"`.
 * The suite appends the server URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. It connects, lists the registered tools and calls each one with
 * arguments made from its input schema; elicitation requests are accepted (declared defaults fill
 * the omitted fields, SEP-1034).
 *
 * `auth/*` scenarios: the entry gets `auth: oauth` (the CIMD URL the suite expects, plus client_id and
 * client_secret from MCP_CONFORMANCE_CONTEXT when it has them). The first connect ends in `needs-login`;
 * the login's "browser" fetches the authorization URL without following redirects (the suite's mock
 * authorization server approves at once) and follows the Location to our callback listener.
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

const isAuth = scenario.startsWith('auth/');
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
const oauth = {
  client_metadata_url: 'https://conformance-test.local/client-metadata.json',
  ...(context.client_id ? { client_id: context.client_id } : {}),
  ...(context.client_secret ? { client_secret: context.client_secret } : {}),
};

let code = 0;
try {
  await manager.start({ mcp_servers: { conformance: { url, connect_timeout: 30, timeout: 30, ...(isAuth ? { auth: 'oauth' as const, oauth } : {}) } } }, { wait: true });
  // A second login when the server asks again right away (its authorization server changed, SEP-2352).
  for (let round = 0; round < 2 && isAuth && manager.list()[0]?.status === 'needs-login'; round++) await login();
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
      // A step-up (403 insufficient_scope) leaves the server needing a login with the wider scope: log in, call again.
      if (isAuth && manager.list()[0]?.status === 'needs-login') {
        await login();
        await tool.execute(argumentsFor(tool.inputSchema), context).then(() => logger.info(`${tool.name}: ok after the new login`), (again: Error) => logger.warn(`${tool.name} failed again: ${again.message}`));
      }
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

/** The mock authorization server approves at once: its answer's Location is our callback with the code. */
async function login(): Promise<void> {
  const handle = manager.login('conformance', {
    onUrl: (authorizationUrl) => {
      void (async () => {
        const answer = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = answer.headers.get('location');
        if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a Location`);
        await fetch(location);
      })().catch((error: Error) => logger.error(`authorization step failed: ${error.message}`));
    },
    onNotice: (text) => logger.info(text),
  });
  const result = await handle.done;
  logger.info(`logged in (expires ${result.expiresAt ?? 'unknown'}, document ${result.usedDocument})`);
  const end = Date.now() + 30_000;
  while (manager.list()[0]?.status !== 'ready' && manager.list()[0]?.status !== 'failed' && manager.list()[0]?.status !== 'needs-login' && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
