import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import type { StderrRing } from './stderr-ring.js';

/** What a stdio child inherits from us: never our secrets, only what tools need to run (spec 2.1). */
const BASELINE_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LANGUAGE', 'TZ', 'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'WINDIR'];

export function baselineEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (BASELINE_ENV.includes(key) || key.startsWith('LC_') || key.startsWith('XDG_')) out[key] = value;
  }
  return out;
}

export interface StdioTransportOptions {
  command: string;
  args: string[];
  /** Added to the baseline environment. */
  env: Record<string, string>;
  cwd?: string;
  stderr: StderrRing;
  /** Grace between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
  /** Our own environment, for the baseline (tests pass a fixed one). */
  parentEnv?: NodeJS.ProcessEnv;
}

/**
 * Newline-delimited JSON-RPC over a child's stdin/stdout. Unlike the SDK's transport, the child
 * leads its own process group and close() signals the whole group, so nothing survives behind `npx`.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private closed = false;
  private exited?: Promise<void>;

  constructor(private readonly options: StdioTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('stdio transport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: { ...baselineEnv(this.options.parentEnv), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', (error) => {
        if (child.pid === undefined) reject(new Error(`cannot start ${this.options.command}: ${error.message}`));
        else this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.signal('SIGKILL');
        this.finish();
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        this.drain();
      });
      child.stdout!.on('error', (error) => this.onerror?.(error));
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stderr!.on('data', (chunk: Buffer) => this.options.stderr.write(chunk));
    });
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) {
        reject(new Error('stdio server is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    child.stdin?.end();
    if (child.exitCode === null && child.signalCode === null) {
      this.signal('SIGTERM');
      const grace = this.options.killGraceMs ?? 2000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        this.exited!.then(() => false),
        new Promise<boolean>((done) => { timer = setTimeout(() => done(true), grace); }),
      ]);
      clearTimeout(timer);
      if (timedOut) this.signal('SIGKILL');
    }
    // Whatever the leader left in its group goes too (npx -> node server).
    this.signal('SIGKILL');
    this.finish();
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.child!.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
