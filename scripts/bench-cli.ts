// CLI start benchmark, hyperfine-style: the built binary run again and again, in alternating rounds
// (bare `node -e 0`, `switchboard --version`, `switchboard cron list` with no gateway, and a floor
// for it: Node reading the same jobs from state.db and printing them), median with
// min and max of the wall time and the child's CPU time; then the console's first full frame under
// tmux (140x45): from starting the process to a screen with its header, pane tabs and footer (drawn
// before the in-process gateway has started), and to the header showing the gateway's listener.
// Two floors take the same path in the same rounds (tmux, the same polling, the same markers on
// screen): Node printing the three lines, and a minimal Ink app (no module hooks) rendering them.
// Usage: npm run -s build && npx tsx scripts/bench-cli.ts [--rounds 15] [--console-rounds 5] [--smoke] [--json FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchArgs, binNodeFlags, formatSpread, report, spread, waitFor, type BenchRow } from './bench-lib.js';

const args = benchArgs();
const rounds = args.number('rounds', 15, 3);
const consoleRounds = args.number('console-rounds', 5, 1);
const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli/main.js');
if (!fs.existsSync(cli)) throw new Error('dist/ is missing: run npm run -s build first');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-cli-'));
const home = path.join(work, 'home');
const env: NodeJS.ProcessEnv = { ...process.env, SWITCHBOARD_HOME: home };
delete env.NODE_OPTIONS;

/** The CPU time of this process's waited-for children so far (Linux /proc/self/stat: cutime + cstime), in ms. */
function childrenCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // clock ticks of 10 ms
}

/** One run to completion: wall ms and CPU ms. */
function timed(command: string[]): { wallMs: number; cpuMs: number } {
  const cpu = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(process.execPath, command, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpu };
}

/** As the `switchboard` bin starts: with its shebang's Node flags. */
const bin = [...binNodeFlags(cli), cli];
const commands: Array<{ name: string; argv: string[]; targetMs?: number }> = [
  { name: 'node -e 0 (the floor: Node itself)', argv: ['-e', '0'] },
  { name: 'switchboard --version', argv: [...bin, '--version'], targetMs: 150 },
  { name: 'switchboard cron list (no gateway, 3 jobs)', argv: [...bin, 'cron', 'list'], targetMs: 150 },
  { name: 'floor for cron list: Node reading the same jobs from state.db and printing them', argv: [cronListFloor()] },
];

/** A program that does the least any `cron list` must: open the home's SQLite file, read the jobs, print a line each. */
function cronListFloor(): string {
  const file = path.join(work, 'floor-cron-list.mjs');
  fs.writeFileSync(file, [
    `import { DatabaseSync } from 'node:sqlite';`,
    `const db = new DatabaseSync(${JSON.stringify(path.join(home, 'state.db'))}, { readOnly: true });`,
    `for (const job of db.prepare('SELECT id, name, schedule FROM jobs ORDER BY name').all()) console.log(String(job.id).slice(0, 8), job.name, job.schedule);`,
  ].join('\n'));
  return file;
}

try {
  // The home: first-run config (listener on an ephemeral port), three jobs to list.
  execFileSync(process.execPath, [cli, 'config', 'set', 'platforms.webhook.extra.port', '0'], { env, stdio: 'ignore' });
  for (const [schedule, prompt] of [['every 30m', 'Summarise the open pull requests'], ['0 9 * * 1-5', 'Morning digest'], ['every 2h', 'Check the build']]) {
    execFileSync(process.execPath, [cli, 'cron', 'create', schedule!, prompt!], { env, stdio: 'ignore' });
  }
  for (const command of commands) timed(command.argv); // warm-up: file cache, compile cache

  const wall = commands.map(() => [] as number[]);
  const cpu = commands.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    commands.forEach((command, index) => {
      const run = timed(command.argv);
      wall[index]!.push(run.wallMs);
      cpu[index]!.push(run.cpuMs);
    });
  }
  const rows: BenchRow[] = commands.map((command, index) => ({
    measure: `${command.name}: wall ms, median`,
    value: `${formatSpread(wall[index]!, 0)}; CPU ${spread(cpu[index]!).median.toFixed(0)} ms`,
    ...(command.targetMs ? { target: `< ${command.targetMs} ms`, met: spread(wall[index]!).median < command.targetMs } : {}),
  }));

  const { frames, running, textFloor, inkFloor } = await consoleFirstFrames(consoleRounds);
  rows.push({ measure: 'console first full frame (tmux 140x45): ms, median', value: formatSpread(frames, 0), target: '< 500 ms', met: spread(frames).median < 500 });
  rows.push({ measure: 'floor: Node printing the same three lines under tmux (same polling): ms, median', value: formatSpread(textFloor, 0) });
  rows.push({ measure: 'floor: a minimal Ink app rendering them (no module hooks): ms, median', value: formatSpread(inkFloor, 0) });
  rows.push({ measure: 'console with its gateway running (listener URL in the header): ms, median', value: formatSpread(running, 0) });
  report('CLI start (bench-cli)', rows, args);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

/**
 * Starts the console under tmux `count` times; each time, the ms until its first whole frame is on
 * screen (header, pane tabs, footer), and until its in-process gateway runs (the header shows the
 * listener's URL instead of "starting").
 */
async function consoleFirstFrames(count: number): Promise<{ frames: number[]; running: number[]; textFloor: number[]; inkFloor: number[] }> {
  const socket = `switchboard-bench-cli-${process.pid}`;
  const tmux = (...argv: string[]) => execFileSync('tmux', ['-L', socket, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const times: number[] = [];
  const running: number[] = [];
  const textFloor: number[] = [];
  const inkFloor: number[] = [];
  const floors = writeFloors();
  /** What `session` shows now, for an error message. */
  const lastScreen = (session: string) => {
    try {
      return `; the screen of ${session}:\n${tmux('capture-pane', '-p', '-t', session)}`;
    } catch {
      return `; ${session} has ended`;
    }
  };
  /** Waits for `check` to hold; a timeout says what the session showed (the CI log is all we see of a flake). */
  const waitShowing = async (session: string, check: () => boolean, what: string) => {
    try {
      await waitFor(() => (check() ? true : undefined), what, 30_000, 5);
    } catch (error) {
      throw new Error(`${(error as Error).message}${lastScreen(session)}`, { cause: error });
    }
  };
  const waitForScreen = (session: string, check: (screen: string) => boolean, what: string) =>
    waitShowing(session, () => check(tmux('capture-pane', '-p', '-t', session)), what);
  /** Starts `command` in a fresh session and answers the ms until the three markers are on screen; `q` ends it. */
  const firstFrame = async (session: string, command: string) => {
    const started = performance.now();
    tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '45', command);
    await waitForScreen(session, isFullFrame, `the first frame of ${session}`);
    return performance.now() - started;
  };
  const floorRound = async (session: string, script: string) => {
    const ms = await firstFrame(session, `${process.execPath} ${script}`);
    tmux('send-keys', '-t', session, 'q');
    await waitShowing(session, () => { try { tmux('has-session', '-t', session); return false; } catch { return true; } }, `${session} to end`);
    return ms;
  };
  try {
    // The server's own start is in no round, and a session of its own keeps it up between rounds: with
    // none left it exits, and a `new-session` in that moment failed with "server exited unexpectedly".
    tmux('new-session', '-d', '-s', 'keep', 'sleep 86400');
    for (let round = 0; round < count; round++) {
      textFloor.push(await floorRound(`text${round}`, floors.text));
      inkFloor.push(await floorRound(`ink${round}`, floors.ink));
      const started = performance.now();
      const session = `cli${round}`;
      tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '45', `env -u NODE_OPTIONS SWITCHBOARD_HOME=${home} ${process.execPath} ${bin.join(' ')}`);
      await waitForScreen(session, isFullFrame, 'the console\'s first frame');
      times.push(performance.now() - started);
      await waitForScreen(session, (screen) => /^switchboard in-process · http:\/\//.test(screen), 'the console\'s gateway to run');
      running.push(performance.now() - started);
      tmux('send-keys', '-t', session, 'q');
      await waitShowing(session, () => !fs.existsSync(path.join(home, 'gateway.lock')), 'the console to quit');
      try {
        tmux('kill-session', '-t', session);
      } catch {
        // it ended with the console
      }
    }
  } finally {
    try {
      tmux('kill-server');
    } catch {
      // no session left
    }
  }
  return { frames: times, running, textFloor, inkFloor };
}

/** The console's whole first frame: its header, pane tabs and footer. */
function isFullFrame(screen: string): boolean {
  return /^switchboard /.test(screen) && screen.includes('1 MCP servers') && screen.includes('Press ? for keys');
}

/** The two floor programs, written to the bench's work folder; each ends on `q`. */
function writeFloors(): { text: string; ink: string } {
  const lines = ['switchboard floor', ' 1 MCP servers  2 Webhook deliveries', 'Press ? for keys'];
  const quitOnQ = `process.stdin.setRawMode(true); process.stdin.on('data', (key) => { if (String(key) === 'q') process.exit(0); });`;
  const text = path.join(work, 'floor-text.mjs');
  fs.writeFileSync(text, `process.stdout.write(${JSON.stringify(lines.join('\n') + '\n')}); ${quitOnQ}\n`);
  const requireHere = createRequire(path.join(root, 'package.json'));
  const ink = path.join(work, 'floor-ink.mjs');
  fs.writeFileSync(ink, [
    `const { render, Box, Text } = await import(${JSON.stringify(pathToFileURL(requireHere.resolve('ink')).href)});`,
    `const { createElement: h } = await import(${JSON.stringify(pathToFileURL(requireHere.resolve('react')).href)});`,
    // interactive as the console is (ui/terminal.ts): with CI set, Ink would write nothing until exit
    `const app = render(h(Box, { flexDirection: 'column' }, ${lines.map((line) => `h(Text, null, ${JSON.stringify(line)})`).join(', ')}), { interactive: process.stdout.isTTY === true });`,
    `process.stdin.setRawMode(true); process.stdin.on('data', (key) => { if (String(key) === 'q') { app.unmount(); process.exit(0); } });`,
  ].join('\n'));
  return { text, ink };
}
