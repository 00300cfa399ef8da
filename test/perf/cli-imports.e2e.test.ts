import { execFile } from 'node:child_process';
import fs from 'node:fs';
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
    // Nor node:crypto (no id is made) or node:util (no .env to parse): an import of either costs 7-11 ms (infra/lazy-builtins.ts).
    expect(modules.filter((url) => url === 'node:crypto' || url === 'node:util')).toEqual([]);
    // commander is required (source/cli/commander.ts): its ESM entry would make Node scan the CommonJS package for export names.
    expect(modules.filter((url) => url.endsWith('/commander/esm.mjs'))).toEqual([]);
  });

  it('cron list on a home whose timezone is UTC never starts ICU\'s time zones (about 23 ms); another zone does', async () => {
    const home = tempHome();
    await run(process.execPath, [cliPath, 'cron', 'create', 'every 30m', 'Summarise', '--home', home.root]);
    // A preload that counts the Intl.DateTimeFormat made in the process (checking a zone, formatting a time).
    const counter = path.join(path.dirname(home.root), 'count-intl.mjs');
    const countFile = path.join(path.dirname(home.root), 'intl-count');
    fs.writeFileSync(counter, `const Original = Intl.DateTimeFormat; let made = 0;
Intl.DateTimeFormat = function (...args) { made += 1; return new Original(...args); };
process.on('exit', () => { process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(countFile)}, String(made)); });`);
    const intlMade = async (timezone: string) => {
      await run(process.execPath, [cliPath, 'config', 'set', 'timezone', timezone, '--home', home.root]);
      const { stdout } = await run(process.execPath, ['--import', counter, cliPath, 'cron', 'list', '--home', home.root]);
      return { stdout, made: Number(fs.readFileSync(countFile, 'utf8')) };
    };
    const utc = await intlMade('UTC');
    expect(utc.stdout).toMatch(/summarise[\s\S]*UTC/);
    expect(utc.made).toBe(0);
    expect((await intlMade('Etc/UTC')).made).toBe(0);
    expect((await intlMade('Europe/Berlin')).made).toBeGreaterThan(0);
  });

  it('a command that writes config.json still loads conf (on first write)', async () => {
    const home = tempHome();
    const { modules } = await modulesOf(['config', 'set', 'timezone', 'UTC'], home.root);
    expect(fromPackage(modules, 'conf').length).toBeGreaterThan(0);
  });
});
