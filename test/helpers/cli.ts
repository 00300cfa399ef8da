import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built binary: tests exercise what operators run (npm test builds first). */
export const cliPath = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SWITCHBOARD_HOME; // tests choose their home explicitly
  return { ...env, ...extra };
}

/** Runs one CLI command to completion. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface RunningCli {
  child: ChildProcess;
  output(): string;
  /** Resolves when stderr or stdout contains `marker`; rejects if the process exits first. */
  waitFor(marker: string | RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<CliResult>;
}

/** Starts a long-running CLI command (the gateway) as a child process; `stdin: 'pipe'` to type into it, `nodeFlags` for Node. */
export function startCli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: 'pipe'; nodeFlags?: string[] } = {}): RunningCli {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), cliPath, ...args], { env: cleanEnv(options.env), stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk; notify(); });
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk; notify(); });
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code) => { resolve({ code, stdout, stderr }); notify(); }));
  let done = false;
  void exited.then(() => (done = true));
  const output = () => stdout + stderr;
  return {
    child,
    output,
    exited,
    waitFor(marker, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const matches = () => (typeof marker === 'string' ? output().includes(marker) : marker.test(output()));
        const timer = setTimeout(() => finish(new Error(`Timed out waiting for ${marker}; output so far:\n${output()}`)), timeoutMs);
        const check = () => {
          if (matches()) finish();
          else if (done) finish(new Error(`Process exited before ${marker}; output:\n${output()}`));
        };
        const finish = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve(output());
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Stops each CLI process still running (SIGTERM unless told otherwise) and waits for it: an afterEach's cleanup. */
export async function stopClis(running: RunningCli[], signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
    await cli.exited;
  }
}

/** `switchboard gateway` on a home, killed (SIGKILL) by the test's cleanup if it still runs: for crash tests. */
export function gatewayChild(root: string, cleanups: Array<() => Promise<void> | void>): RunningCli {
  const child = startCli(['--home', root, 'gateway']);
  cleanups.push(async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGKILL');
      await child.exited;
    }
  });
  return child;
}

/** gatewayChild, once its webhook listener is up: the child and the listener's URL. */
export async function startedGateway(root: string, cleanups: Array<() => Promise<void> | void>): Promise<{ gateway: RunningCli; url: string }> {
  const gateway = gatewayChild(root, cleanups);
  const url = /Webhook listener on (http:\/\/\S+)/.exec(await gateway.waitFor(/Webhook listener on http:\/\/\S+ /, 30_000))![1]!;
  return { gateway, url };
}
