// Plain-text captures of the console, so a reader sees it without running it (issue #20).
// Starts a headless gateway on a throwaway home (one webhook route, one job, one stdio MCP server,
// a few webhook requests with different outcomes), attaches the built console under tmux at 140x45
// and 80x24, and writes each pane and the key overlay to docs/screens/<size>-<screen>.txt.
// Usage: npm run screens   (builds first)
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist', 'cli', 'main.js');
const out = path.join(root, 'docs', 'screens');
const SECRET = 'screens-secret-0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-screens-'));
const home = path.join(work, 'home');
fs.mkdirSync(home, { mode: 0o700 });
fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({
  mcp_servers: { fixture: { command: process.execPath, args: [path.join(root, 'test', 'fixtures', 'mcp', 'fixture-server.mjs'), 'stdio'], trust: 'untrusted' } },
  platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port: 0, routes: {
    'github-prs': { secret: SECRET, events: ['pull_request'], prompt: 'Review PR #{number}: {pull_request.title}', deliver: 'log', description: 'Reviews opened pull requests' },
  } } } },
}), { mode: 0o600 });

const switchboard = (...args: string[]) => execFileSync(process.execPath, [cli, ...args, '--home', home], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const socket = `switchboard-screens-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function post(url: string, event: string, body: Record<string, unknown>, signed = true): Promise<number> {
  const text = JSON.stringify(body);
  const signature = `sha256=${createHmac('sha256', signed ? SECRET : 'wrong-secret').update(text).digest('hex')}`;
  const response = await fetch(`${url}/webhooks/github-prs`, { method: 'POST', body: text, headers: {
    'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': signature } });
  return response.status;
}

/** Screen name, the keys that show it (sent one by one), and the keys that leave it afterwards. */
const screens: Array<[string, string[], string[]?]> = [
  ['1-mcp', ['1']], ['2-webhooks', ['2']], ['3-jobs', ['3']], ['4-approvals', ['4']], ['5-logs', ['5']], ['6-output', ['6']], ['help', ['?'], ['Escape']],
  // Rows of pane 2: the route, then the newest first: 401, ignored ping, then the accepted ones.
  ['2-webhooks-details', ['2', 'g', 'j', 'j', 'j', 'Enter'], ['Escape']],
  ['2-webhooks-filter', ['F', ...'outcome:accepted'.split(''), 'Enter'], ['Escape']],
];

async function capture(columns: number, rows: number): Promise<string[]> {
  const session = `console-${columns}x${rows}`;
  tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', String(rows), `${process.execPath} ${cli} --attach --home ${home}`);
  const screen = () => tmux('capture-pane', '-p', '-t', session);
  await waitFor(() => screen().includes(' 1 MCP'), 'the console to attach');
  await sleep(1500); // MCP details and deliveries arrive after the snapshot
  const written: string[] = [];
  for (const [name, keys, after = []] of screens) {
    for (const key of keys) tmux('send-keys', '-t', session, key);
    await sleep(600);
    const file = `${columns}x${rows}-${name}.txt`;
    fs.writeFileSync(path.join(out, file), screen().replace(/\s+$/gm, '').trimEnd() + '\n');
    written.push(file);
    // Apart: Esc with the next key in one read would be Alt+key.
    for (const key of after) tmux('send-keys', '-t', session, key);
    if (after.length > 0) await sleep(300);
  }
  tmux('send-keys', '-t', session, 'q');
  await sleep(300);
  tmux('send-keys', '-t', session, 'y');
  return written;
}

async function main(): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  const gateway = spawn(process.execPath, [cli, 'gateway', '--home', home], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  gateway.stderr.on('data', (chunk: Buffer) => (log += chunk));
  try {
    const url = await waitFor(() => /Webhook listener on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1], 'the gateway to listen');
    await waitFor(() => log.includes('Control channel listening'), 'the control channel');
    switchboard('cron', 'create', 'every 1d', 'Summarise yesterday\'s merged pull requests', '--name', 'daily-digest', '--deliver', 'log');
    switchboard('cron', 'create', '0 9 * * 1-5', 'Check the open incidents', '--name', 'weekday-check', '--deliver', 'local');
    const statuses = [
      await post(url, 'pull_request', { action: 'opened', number: 42, pull_request: { title: 'Add retry to the uploader' } }),
      await post(url, 'pull_request', { action: 'opened', number: 43, pull_request: { title: 'Bump dependencies' } }),
      await post(url, 'ping', { zen: 'Keep it logically awesome.' }),
      await post(url, 'pull_request', { action: 'opened', number: 44, pull_request: { title: 'Forged' } }, false),
    ];
    switchboard('run', 'Say hello to the operator');
    await sleep(500);
    const files = [...(await capture(140, 45)), ...(await capture(80, 24))];
    fs.writeFileSync(path.join(out, 'README.md'), [
      '# Console screens',
      '',
      'Plain-text captures of `switchboard --attach` under tmux, written by `npm run screens`',
      `(scripts/screens.ts): a headless gateway with one route, two jobs and one stdio MCP server; four`,
      `webhook requests (answers ${statuses.join(', ')}) and one CLI run, dry-run model.`,
      '',
      ...files.map((file) => `- [${file}](${file})`),
      '',
    ].join('\n'));
    process.stdout.write(`wrote ${files.length} screens to docs/screens/\n`);
  } finally {
    try { tmux('kill-server'); } catch { /* no server */ }
    gateway.kill('SIGTERM');
    await new Promise((resolve) => gateway.once('exit', resolve));
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
