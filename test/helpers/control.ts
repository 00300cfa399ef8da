import net from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createEventJournal, type EventJournal } from '../../source/control/journal.js';
import { createControlServer, type ControlServer, type ControlServerDeps } from '../../source/control/server.js';
import { createLineSplitter } from '../../source/control/framing.js';
import { tempHome } from './temp-home.js';

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  object: Record<string, unknown>;
  message?: string;
}

/** A ControlLogger that keeps what it is given. */
export function memoryLogger() {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry['level']) => (object: object, message?: string) => void entries.push({ level, object: object as Record<string, unknown>, message });
  return { entries, info: at('info'), warn: at('warn'), error: at('error') };
}

const running: ControlServer[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

export type ServerOverrides = Partial<ControlServerDeps>;

/** A started control server on a socket in a fresh temp home; stopped after the test. */
export async function startControlServer(overrides: ServerOverrides = {}) {
  const home = tempHome();
  const journal: EventJournal = overrides.journal ?? createEventJournal({ capacity: 100 });
  const logger = memoryLogger();
  const deps: ControlServerDeps = {
    socketPath: path.join(home.root, 'control.sock'),
    journal,
    logger,
    dispatch: async (method, params) => ({ method, params }),
    snapshot: () => ({ seq: journal.seq }),
    hello: () => ({ pid: process.pid, version: 'test', home: home.root, mode: 'headless' }),
    ...overrides,
  };
  const server = createControlServer(deps);
  running.push(server);
  await server.start();
  return { server, journal, logger, socketPath: deps.socketPath, home, deps };
}

/** Registers a server made by the test itself for stopping after it. */
export function track(server: ControlServer): ControlServer {
  running.push(server);
  return server;
}

export interface RawClient {
  socket: net.Socket;
  /** Writes an object as one JSON line, or a string as it is. */
  send(message: object | string): void;
  /** The next line from the server, parsed. */
  next(): Promise<Record<string, unknown>>;
  /** Resolves when the server side has closed the connection. */
  closed: Promise<void>;
}

/** A bare newline-JSON peer, for what the real client never sends. */
export async function rawClient(target: string | { host: string; port: number }): Promise<RawClient> {
  const socket = typeof target === 'string' ? net.createConnection(target) : net.createConnection(target);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {}); // EPIPE after the server closes is expected in several tests
  const lines: Record<string, unknown>[] = [];
  const waiters: Array<(line: Record<string, unknown>) => void> = [];
  const splitter = createLineSplitter(64 * 1024 * 1024, (line) => {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(parsed);
    else lines.push(parsed);
  }, () => {});
  socket.on('data', (chunk: Buffer) => splitter.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    send: (message) => socket.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`),
    next: () => {
      const line = lines.shift();
      if (line) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        waiters.push(resolve);
        void closed.then(() => reject(new Error('connection closed before the next line')));
      });
    },
    closed,
  };
}

export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
