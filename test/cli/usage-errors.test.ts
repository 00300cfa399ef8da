import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../source/cli/program.js';
import { tempHome } from '../helpers/temp-home.js';

/** Runs the CLI in this process (no dist/ needed): its exit code and what it wrote. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { stdout.push(String(chunk)); return true; });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr.push(String(chunk)); return true; });
  try {
    const code = await runCli([...args, '--home', home]);
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
let home = '';
beforeEach(() => { home = tempHome().root; });
afterEach(() => { process.exitCode = undefined; });

describe('usage mistakes exit 2 with commander\'s message (README "Exit codes")', () => {
  it.each([
    [['cron', 'create'], "error: missing required argument 'schedule'\n"],
    [['cron', 'list', '--bogus'], "error: unknown option '--bogus'\n"],
    [['status', '--jsn'], "error: unknown option '--jsn'\n(Did you mean --json?)\n"],
    [['cron', 'list', 'extra'], "error: too many arguments for 'list'. Expected 0 arguments but got 1.\n"],
    [['crn'], "error: unknown command 'crn'\n(Did you mean cron?)\n"],
    [['cron', 'bogus'], "error: unknown command 'bogus'\n"],
    [['--bogus'], "error: unknown option '--bogus'\n"],
  ])('%j', async (args, message) => {
    expect(await cli(...args)).toMatchObject({ code: 2, stderr: message });
  });

  it('a missing option value before any command', async () => {
    const stderr: string[] = [];
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr.push(String(chunk)); return true; });
    try {
      expect(await runCli(['--home'])).toBe(2);
    } finally {
      err.mockRestore();
    }
    expect(stderr.join('')).toBe("error: option '--home <dir>' argument missing\n");
  });

  it('a mistake a command finds itself (mcp add)', async () => {
    expect(await cli('mcp', 'add', 'fx', '--command', 'node', '--url', 'https://example.invalid/mcp'))
      .toMatchObject({ code: 2, stderr: expect.stringContaining('error: give exactly one of --command (stdio) or --url (HTTP)\n') });
  });

  it('cron names what was typed: a choice, an empty argument, an edit without options; a missing job gets its hint once', async () => {
    expect(await cli('cron', 'create', 'every 1d', 'hi', '--catch-up', 'never'))
      .toMatchObject({ code: 2, stderr: "error: option '--catch-up <policy>' argument 'never' is invalid. Allowed choices are once, skip.\n" });
    expect(await cli('cron', 'create', 'every 1d', ' ')).toMatchObject({ code: 2, stderr: expect.stringContaining('error: <prompt> must not be empty\n') });
    expect(await cli('cron', 'edit', 'daily')).toMatchObject({ code: 2, stderr: expect.stringContaining('--script, --catch-up\n') });
    const missing = await cli('cron', 'show', 'daily');
    expect(missing.code).toBe(1);
    expect(missing.stderr.match(/cron list --all/g)).toHaveLength(1);
  });

  it('help and version still exit 0', async () => {
    expect(await cli('--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: switchboard') });
    expect(await cli('cron', 'create', '--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: switchboard cron create') });
    expect(await cli('--version')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});

describe('numeric options: one parser, a bad value named as typed, exit 2', () => {
  it.each([
    [['webhook', 'deliveries', '--limit', 'abc'], "option '--limit <n>' argument 'abc' is invalid. It must be a whole number from 1 to 10000."],
    [['deliveries', 'list', '--limit', 'x'], "option '--limit <n>' argument 'x' is invalid. It must be a whole number from 1 to 10000."],
    [['cron', 'runs', '--limit', '2.5'], "option '--limit <n>' argument '2.5' is invalid. It must be a whole number from 1 to 10000."],
    [['cron', 'next', '*/15 * * * *', '--count', 'x'], "option '--count <n>' argument 'x' is invalid. It must be a whole number from 1 to 1000."],
    [['cron', 'next', '*/15 * * * *', '--count', '0'], "option '--count <n>' argument '0' is invalid. It must be a whole number from 1 to 1000."],
    [['cron', 'next', '*/15 * * * *', '--count', '1001'], "option '--count <n>' argument '1001' is invalid. It must be a whole number from 1 to 1000."],
    [['mcp', 'add', 'fx', '--command', 'node', '--timeout', 'soon'], "option '--timeout <seconds>' argument 'soon' is invalid. It must be a number above 0."],
    [['mcp', 'add', 'fx', '--command', 'node', '--timeout', '0'], "option '--timeout <seconds>' argument '0' is invalid. It must be a number above 0."],
  ])('%j', async (args, message) => {
    expect(await cli(...args)).toMatchObject({ code: 2, stderr: `error: ${message}\n` });
  });

  it('a good value reaches the operation as a number', async () => {
    const next = await cli('cron', 'next', '*/15 * * * *', '--count', '2');
    expect(next.code).toBe(0);
    expect(next.stdout.trim().split('\n')).toHaveLength(2);
  });
});

describe('mcp add', () => {
  it('refuses options of the other transport (exit 2), a command path that does not exist (exit 1), and stores a relative path absolute', async () => {
    const web = await cli('mcp', 'add', 'web', '--url', 'http://127.0.0.1:9/mcp', '--arg', 'x');
    expect(web.code).toBe(2);
    expect(web.stderr).toMatch(/\nerror: --arg is for --command \(stdio\) servers\n$/);
    expect(await cli('mcp', 'add', 'local', '--command', 'node', '--header', 'A=b', '--transport', 'sse')).toMatchObject({ code: 2, stderr: 'error: --header and --transport are for --url (HTTP) servers\n' });
    const missing = await cli('mcp', 'add', 'gone', '--command', './no-such-server.sh');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--command ./no-such-server.sh: no such file');
    const relative = path.relative(process.cwd(), path.join(repoRoot, 'test', 'fixtures', 'mcp', 'fixture-server.mjs'));
    expect((await cli('mcp', 'add', 'fx', '--command', relative)).code).toBe(0);
    const config = JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8')) as { mcp_servers: Record<string, { command: string }> };
    expect(config.mcp_servers.fx!.command).toBe(path.join(repoRoot, 'test', 'fixtures', 'mcp', 'fixture-server.mjs'));
  });
});
