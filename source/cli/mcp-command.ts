import fs from 'node:fs';
import path from 'node:path';
import { Command } from './commander.js';
import { OperatorError } from '../operations/errors.js';
import type { McpServerConfig } from '../config/types.js';
import { sayApplied } from './config-command.js';
import { homeOf } from './context.js';
import { skippedLine } from '../operations/mcp-skipped-line.js';
import { positiveNumber } from './number-options.js';
import { print, say, UsageError } from './output.js';
import { withOperations } from './session.js';

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export function mcpCommand(): Command {
  const mcp = new Command('mcp').description('MCP servers: list, test, add, remove, OAuth login, install links');
  mcp
    .command('list')
    .description('Servers with status, era, transport and registered tools: the running gateway\'s, or (none running) each enabled server connected once')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }, command: Command) => withOperations(command, async ({ operations }) => {
      const { servers: views, warnings } = await operations.mcp.servers({});
      if (views.some((v) => v.status === 'failed' || v.status === 'needs-login')) process.exitCode = 1;
      if (options.json) {
        print(JSON.stringify({ servers: views.map((v) => ({
          name: v.name, status: v.status, era: v.era ?? null, transport: v.transport, error: v.reason ?? null,
          tools: v.tools.map((t) => ({ name: t.name, original: t.original, readOnly: t.readOnly })),
          skipped: v.skipped.map((t) => ({ name: t.name, original: t.original, owner: t.owner })),
        })), warnings }, undefined, 2));
        return;
      }
      for (const warning of warnings) say(`warning: ${warning}`);
      if (views.length === 0) return say(`No MCP servers configured. Add one: switchboard mcp add <name> --command <cmd> [--arg <a>]... | --url <url>`);
      for (const v of views) {
        print(`${v.name}  ${v.status}  ${v.transport}  era ${v.era ?? '-'}${v.reason ? `  (${v.reason})` : ''}`);
        for (const t of v.tools) print(`  ${t.name}  <- ${t.original}${t.readOnly ? '  read-only' : ''}`);
        for (const t of v.skipped) print(`  ${skippedLine(t)}`);
        if (v.status === 'ready' && v.tools.length === 0 && v.skipped.length === 0) print('  (no tools registered: the filters left none and no utility tool applies)');
      }
    }));

  mcp
    .command('test <server>')
    .description('Connect to one server (even when enabled: false), list its tools, and report what went wrong')
    .action(async (name: string, _options, command: Command) => {
      const home = homeOf(command);
      const started = Date.now();
      const { probeServer } = await import('../operations/mcp-probe.js');
      const probed = await probeServer(home, name, (message) => say(`warning: ${message}`));
      const view = probed?.view;
      const stderr = probed?.stderr ?? [];
      if (!view) {
        say(`error: no server "${name}" in mcp_servers of ${home.configFile}`);
        say('  See the configured names: switchboard mcp list');
        process.exitCode = 1;
        return;
      }
      if (view.status !== 'ready') {
        say(view.reason ? `${view.reason} (status ${view.status})` : `server ${name}: ${view.status}`);
        if (stderr.length > 0) say(`  last stderr lines:\n    ${stderr.slice(-10).join('\n    ')}`);
        process.exitCode = 1;
        return;
      }
      print(`server ${name}: ready in ${Date.now() - started} ms over ${view.transport}, ${view.era} era${view.protocolVersion ? ` (${view.protocolVersion})` : ''}, ${view.tools.length} tools`);
      for (const t of view.tools) print(`  ${t.name}  <- ${t.original}${t.readOnly ? '  read-only' : ''}`);
    });

  mcp
    .command('reconnect <server>')
    .description('Close and reconnect one server of the running gateway (also after it was marked failed: its attempts start over)')
    .action((name: string, _options: unknown, command: Command) => withOperations(command, async ({ operations }) => {
      await operations.mcp.reconnect({ server: name });
      say(`Reconnecting ${name}; see its status with: switchboard mcp list`);
    }));

  mcp
    .command('add <name>')
    .description('Add a server entry to config.json (never overwrites an existing name)')
    .option('--command <cmd>', 'stdio: executable to launch')
    .option('--arg <arg>', 'stdio: one argument (repeat for more)', collect, [])
    .option('--env <KEY=VALUE>', 'stdio: environment variable (repeatable; ${VAR} references stay references)', collect, [])
    .option('--url <url>', 'HTTP: the MCP endpoint')
    .option('--header <Name=Value>', 'HTTP: request header (repeatable)', collect, [])
    .option('--transport <kind>', 'HTTP: sse for the SSE transport')
    .option('--protocol <era>', 'auto (default), stateless or legacy')
    .option('--trust <level>', 'full (default) or untrusted')
    .option('--timeout <seconds>', 'tool-call timeout', positiveNumber)
    .option('--disabled', 'add it with enabled: false')
    .action((name: string, options: AddOptions, command: Command) => withOperations(command, async (session) => {
      if (!NAME.test(name)) throw new UsageError(`server name "${name}" must be 1-64 characters of A-Z a-z 0-9 . _ -`);
      if (Boolean(options.command) === Boolean(options.url)) throw new UsageError('give exactly one of --command (stdio) or --url (HTTP)');
      const otherTransport = options.command
        ? [options.header.length > 0 && '--header', options.transport && '--transport'].filter(Boolean)
        : [options.arg.length > 0 && '--arg', options.env.length > 0 && '--env'].filter(Boolean);
      if (otherTransport.length > 0) throw new UsageError(`${otherTransport.join(' and ')} ${otherTransport.length > 1 ? 'are' : 'is'} for ${options.command ? '--url (HTTP)' : '--command (stdio)'} servers`);
      const entry: Record<string, unknown> = options.command
        ? { command: commandPath(options.command), ...(options.arg.length > 0 ? { args: options.arg } : {}), ...(options.env.length > 0 ? { env: pairs(options.env, '--env') } : {}) }
        : { url: options.url, ...(options.header.length > 0 ? { headers: pairs(options.header, '--header') } : {}), ...(options.transport ? { transport: options.transport } : {}) };
      if (options.protocol) entry.protocol = options.protocol;
      if (options.trust) entry.trust = options.trust;
      if (options.timeout !== undefined) entry.timeout = options.timeout;
      if (options.disabled) entry.enabled = false;
      const changed = await session.operations.mcp.add({ name, entry: entry as unknown as McpServerConfig, by: 'cli' });
      say(`Added MCP server ${name}. Check it: switchboard mcp test ${name}`);
      sayApplied(session, changed);
    }));

  mcp
    .command('remove <name>')
    .description('Remove a server entry from config.json')
    .action((name: string, _options: unknown, command: Command) => withOperations(command, async (session) => {
      const changed = await session.operations.mcp.remove({ name, by: 'cli' });
      say(`Removed MCP server ${name}.`);
      sayApplied(session, changed);
    }));
  return mcp;
}

interface AddOptions {
  command?: string;
  arg: string[];
  env: string[];
  url?: string;
  header: string[];
  transport?: string;
  protocol?: string;
  trust?: string;
  timeout?: number;
  disabled?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function pairs(items: string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`${flag} "${item}" must look like NAME=value`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/**
 * A command given as a path is stored absolute, as `cron create --script` stores its script: the
 * gateway may start the server from another working directory. A bare name is looked up on PATH
 * when the server starts.
 */
function commandPath(command: string): string {
  if (!command.includes('/')) return command;
  const absolute = path.resolve(command);
  if (!fs.existsSync(absolute)) throw new OperatorError('invalid', `--command ${command}: no such file (${absolute})`, 'Give the path of an executable, or a command name found on PATH.');
  return absolute;
}
