import { runsHeadlessGateway } from './command-line.js';

/**
 * The headless gateway holds V8's young generation at 2 x 4 MB: a draining gateway then peaks about
 * 25 MB lower at the same CPU (docs/perf/drain.md). V8 reads that size at start only, so it is a
 * command-line flag; but any V8 flag there makes Node compile its own built-in modules afresh (their
 * embedded code cache is checked against the flags), about 15 ms on every start of every command
 * (docs/perf/cli-start.md). So the bin starts Node without flags and only the gateway replaces its
 * process with one that has them.
 */
export const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=4'] as const;

/**
 * True when stdin and stdout are terminals. node:tty loads on this path only (it loads node:net, a
 * few ms every command would pay), and isatty, not process.stdin.isTTY: that would set up the stdio
 * streams a process about to be replaced has no use for.
 */
function bothTerminals(): boolean {
  const { isatty } = process.getBuiltinModule('node:tty');
  return isatty(0) && isatty(1);
}

/**
 * When `argv` runs the headless gateway and Node was not started with a semi-space size already
 * (on Node's command line or in NODE_OPTIONS), replaces this process with the same one plus
 * GATEWAY_NODE_FLAGS: `process.execve`, so the pid, stdio and environment stay (a service manager
 * sees one process). Called first thing, before stdio is touched or a file opened. Where execve is
 * missing (Windows) or fails, the gateway runs in this process with V8's default sizes.
 */
export function execGatewayWithNodeFlags(argv: readonly string[], script: string): void {
  if (typeof process.execve !== 'function' || process.platform === 'win32') return; // Windows has no execve (it throws there)
  if (!runsHeadlessGateway(argv, bothTerminals)) return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((flag) => flag.startsWith('--max-semi-space-size'))) return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...GATEWAY_NODE_FLAGS, script, ...argv], process.env);
  } catch {
    // Newer Node throws when execve(2) fails (22.x aborts instead): the gateway runs here, with V8's default sizes.
  }
}
