import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/process.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/webhooks.js';

/**
 * `npm run cluster:demo` (issue #19, "Try it"): scripts/cluster-demo.ts as a child process, as an
 * operator runs it: an embedded PostgreSQL and three built gateways; Ctrl-C leaves nothing behind.
 */
const repoRoot = path.resolve(import.meta.dirname, '../..');
let demo: ChildProcess | undefined;
let again: RunningCli | undefined;
let output = '';
afterAll(async () => {
  if (again && again.child.exitCode === null && again.child.signalCode === null) again.child.kill('SIGKILL');
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    demo.kill('SIGINT');
    await new Promise((resolve) => demo!.once('exit', resolve));
  }
});


/** The printed curl snippet (SECRET=, BODY=, SIG=, a curl per node), run by bash: its output. */
async function runPrintedCurl(): Promise<string> {
  const start = output.indexOf('  SECRET="');
  const snippet = output.slice(start, output.indexOf('\n', output.indexOf('  for PORT in', start)));
  const { stdout } = await promisify(execFile)('bash', ['-c', snippet]);
  return stdout;
}

describe('npm run cluster:demo', () => {
  it('starts PostgreSQL and three gateways that take signed webhooks, a killed node rejoins as printed, and SIGINT stops them all and removes the folder', { timeout: 240_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.SWITCHBOARD_HOME;
    // A process group of its own, as in a terminal: Ctrl-C there reaches every process of the group.
    demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster-demo.ts'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    demo.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    demo.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => demo!.once('exit', (code) => resolve(code)));
    await waitUntil(() => {
      if (demo!.exitCode !== null) throw new Error(`the demo exited (${demo!.exitCode}):\n${output}`);
      return output.includes('Cluster ready.');
    }, 180_000, 'the demo to be ready');

    const folder = /everything under (\S+)/.exec(output)![1]!;
    const postgresPid = Number(/one PostgreSQL \(pid (\d+)\)/.exec(output)![1]);
    const nodes = [...output.matchAll(/node (\d)\s+(http:\/\/127\.0\.0\.1:\d+)\s+pid (\d+)\s+home (\S+)\s+id (\S+)/g)].map((match) => ({ url: match[2]!, pid: Number(match[3]), home: match[4]!, id: match[5]! }));
    expect(nodes).toHaveLength(3);
    // The ids printed are those status and the console show.
    for (const node of nodes) expect(fs.readFileSync(path.join(node.home, 'node-id'), 'utf8').trim()).toBe(node.id);
    // The database password is never printed: the URL is in each home's .env.
    const password = new URL(/^DATABASE_URL=(.+)$/m.exec(fs.readFileSync(path.join(nodes[0]!.home, '.env'), 'utf8'))![1]!).password;
    expect(password.length).toBeGreaterThan(8);
    expect(output).not.toContain(password);
    expect(output).toMatch(/database\s+postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/switchboard/);
    expect(new Set(nodes.map((node) => Number(new URL(node.url).port) - Number(new URL(nodes[0]!.url).port)))).toEqual(new Set([0, 1, 2]));
    expect(fs.existsSync(folder)).toBe(true);
    for (const node of nodes) expect(node.home.startsWith(folder)).toBe(true);

    // The printed, ready-to-paste curl loop (signature computed by openssl) is accepted by every node.
    const answers = (await runPrintedCurl()).trim().split('\n');
    expect(answers).toHaveLength(3);
    for (const answer of answers) expect(answer).toMatch(/"status":"accepted".* HTTP 202$/);
    // One database behind them: a delivery id accepted on node 1 is a duplicate on node 3.
    const secret = /^DEMO_WEBHOOK_SECRET=(.+)$/m.exec(fs.readFileSync(path.join(nodes[0]!.home, '.env'), 'utf8'))![1]!;
    expect(output).not.toContain(secret); // the route's secret is never printed, as the database password
    const body = JSON.stringify({ action: 'opened' });
    const post = (url: string) => fetch(`${url}/webhooks/demo`, { method: 'POST', body, headers: {
      'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': 'demo-shared-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    } }).then((response) => response.status);
    expect(await post(nodes[0]!.url)).toBe(202);
    expect(await post(nodes[2]!.url)).toBe(200);

    // A node killed and started again as printed (no database URL in the environment) rejoins under its id.
    process.kill(nodes[2]!.pid, 'SIGKILL');
    await waitUntil(() => output.includes(`node 3 (${nodes[2]!.id}) was killed by SIGKILL`), 20_000, 'the demo to see node 3 die');
    const restartLine = /to start it again \(it rejoins as \S+\): switchboard (gateway --home \S+)\n/;
    await waitUntil(() => restartLine.test(output), 5_000, 'the demo to say how to start node 3 again');
    const restart = restartLine.exec(output)![1]!.split(' ');
    const restartEnv = { ...process.env };
    delete restartEnv.SWITCHBOARD_DATABASE_URL;
    again = startCli(restart, { env: restartEnv });
    const rejoined = async () => {
      const status = JSON.parse((await runCli(['status', '--json', '--home', nodes[0]!.home])).stdout) as { cluster?: { nodes: Array<{ id: string; pid: number; state: string }> } };
      return status.cluster?.nodes.some((node) => node.id === nodes[2]!.id && node.pid === again!.child.pid && node.state === 'up') ?? false;
    };
    await waitUntil(rejoined, 60_000, 'node 3 to rejoin');

    process.kill(-demo.pid!, 'SIGINT'); // Ctrl-C in the demo's terminal
    expect(await exited).toBe(0);
    // PostgreSQL outlived the gateways: the one started again left the cluster cleanly.
    expect(again.output()).toContain('Gateway stopping: SIGTERM received');
    expect(again.output()).not.toContain('Leaving the cluster failed');
    expect(output).toContain(`Stopping the gateway started again on node 3 (pid ${again.child.pid})`);
    expect(output).toContain(`Stopped; removed ${folder}`);
    expect(fs.existsSync(folder)).toBe(false);
    for (const pid of [postgresPid, again.child.pid!, ...nodes.map((node) => node.pid)]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });
});
