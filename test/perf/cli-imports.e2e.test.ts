import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { fromPackage, moduleRecorder } from '../helpers/module-recorder.js';
import { tempHome } from '../helpers/temp-home.js';

const run = promisify(execFile);

/** Runs one CLI command with the module recorder preloaded; the modules it loaded. */
async function modulesOf(args: string[], home: string): Promise<{ stdout: string; modules: string[] }> {
  const recorder = moduleRecorder(path.dirname(home));
  const env = { ...process.env };
  delete env.SWITCHBOARD_HOME;
  const { stdout } = await run(process.execPath, ['--import', recorder.hook, cliPath, ...args, ...(args[0] === '--version' ? [] : ['--home', home])], { env });
  return { stdout, modules: recorder.modules() };
}

/**
 * Start time is measured by scripts/bench-cli.ts; these pin what made it short, so a new static
 * import cannot bring the cost back unnoticed: what a command does not need is not loaded.
 */
describe('CLI start: what a short command loads', () => {
  it('--version loads neither the command tree nor any package', async () => {
    const home = tempHome();
    const { stdout, modules } = await modulesOf(['--version'], home.root);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(modules.filter((url) => url.includes('/dist/cli/program.js'))).toEqual([]);
    expect(modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
  });

  it('cron list with no gateway loads the cron commands and the jobs domain only: no gateway, Fastify, pino, Ajv compiler, conf, yaml, AI or MCP SDK', async () => {
    const home = tempHome();
    await run(process.execPath, [cliPath, 'cron', 'create', 'every 30m', 'Summarise', '--home', home.root]);
    const { stdout, modules } = await modulesOf(['cron', 'list'], home.root);
    expect(stdout).toContain('summarise'); // job names are slugs
    expect(modules.some((url) => url.includes('/dist/scheduler/jobs-domain.js'))).toBe(true);
    // The command tree holds the cron group only: the others (MCP, OAuth, webhooks, runs...) stay unloaded.
    expect(modules.filter((url) => /\/dist\/cli\/[a-z-]+-commands?\.js$/.test(url)).map((url) => url.replace(/.*\/dist\/cli\//, ''))).toEqual(['cron-command.js']);
    expect(modules.filter((url) => /\/dist\/(gateway\/gateway|webhooks\/server|agent\/agent-stack|mcp\/manager)\.js$/.test(url))).toEqual([]);
    for (const name of ['fastify', 'pino', 'conf', 'yaml', 'ai', '@modelcontextprotocol/client', '@ai-sdk/openai']) expect(fromPackage(modules, name), name).toEqual([]);
    // The config is checked by the precompiled validator: Ajv's runtime helpers only, never its compiler.
    expect(fromPackage(modules, 'ajv').filter((url) => !url.includes('/ajv/dist/runtime/'))).toEqual([]);
  });

  it('a command that writes config.json still loads conf (on first write)', async () => {
    const home = tempHome();
    const { modules } = await modulesOf(['config', 'set', 'timezone', 'UTC'], home.root);
    expect(fromPackage(modules, 'conf').length).toBeGreaterThan(0);
  });
});
