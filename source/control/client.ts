/**
 * The control channel's client, used by CLI commands and attached consoles. Loaded on every CLI
 * command, so it imports node:net and the small protocol modules only.
 */
import net from 'node:net';
import { OperatorError } from '../operations/errors.js';
import { createLineSplitter } from './framing.js';
import { rpcToOperatorError, type ControlEvent, type ControlHello, type EventCursor, type RpcError, type SubscribeResult } from './protocol.js';

export type ControlStatus = 'connected' | 'disconnected' | 'retrying';

export type ControlTarget = { socketPath: string } | { url: string; token?: string } | { host: string; port: number; token?: string };

export type ControlClientOptions = ControlTarget & {
  /** After a lost connection, dial again with backoff (100 ms doubling to 2 s) and resume the subscription. */
  reconnect?: boolean;
  onStatus?: (status: ControlStatus, detail?: string) => void;
  /** Per dial. Default 2 s. */
  connectTimeoutMs?: number;
};

export interface SubscribeHandlers<S = unknown, E = unknown> {
  /** The whole state, at `cursor.seq`: on the first subscribe, and after a reconnect that could not resume. */
  onSnapshot(snapshot: S, cursor: EventCursor): void;
  /** Every event after the snapshot, in order, once each (missed ones are replayed after a reconnect). */
  onEvent(event: ControlEvent<E>): void;
  /** A resubscription after a reconnect failed (the subscription stays registered for the next one). */
  onError?(error: OperatorError): void;
}

export interface ControlSubscription {
  unsubscribe(): Promise<void>;
}

export interface ControlClient {
  /** Rejects with the gateway's OperatorError, or OperatorError('unavailable') when the connection is absent or lost. */
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
  hello(): Promise<ControlHello>;
  /** One subscription per client; resolves once `onSnapshot` has run. */
  subscribe<S = unknown, E = unknown>(handlers: SubscribeHandlers<S, E>): Promise<ControlSubscription>;
  close(): Promise<void>;
  /** The socket path or tcp:// URL, for messages. */
  readonly target: string;
}

const MAX_RESPONSE_LINE_BYTES = 256 * 1024 * 1024;
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2_000;

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: OperatorError): void;
}

interface Subscription {
  handlers: SubscribeHandlers;
  cursor?: EventCursor;
}

/** Connects (and authenticates, over TCP with a token); rejects with OperatorError('unavailable') when no gateway answers. */
export async function connectControl(options: ControlClientOptions): Promise<ControlClient> {
  const endpoint = endpointOf(options);
  const connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
  const pending = new Map<number, Pending>();
  let socket: net.Socket | undefined;
  let ready = false;
  let closed = false;
  let nextId = 1;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let subscription: Subscription | undefined;

  const lost = (method: string, why: string) =>
    new OperatorError('unavailable', `No connection to the gateway at ${endpoint.label} for ${method}: ${why}`, 'Check that the gateway is running (switchboard status), then try again.');

  const send = <T>(method: string, params: unknown, onResult: (result: unknown) => T = (result) => result as T): Promise<T> => {
    const current = socket;
    if (!current || current.destroyed) return Promise.reject(lost(method, closed ? 'the client is closed' : 'not connected'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      // onResult runs synchronously with the response line, before any later line (a subscribe result before its events).
      const settle = (result: unknown) => {
        try {
          resolve(onResult(result));
        } catch (error) {
          reject(error as Error);
        }
      };
      pending.set(id, { method, reject, resolve: settle });
      current.write(`${JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })}\n`);
    });
  };

  const applySubscribeResult = (raw: unknown) => {
    const result = raw as SubscribeResult;
    const current = subscription;
    if (!current) return;
    if (result.mode === 'resume') {
      current.cursor ??= { epoch: result.epoch, seq: 0 };
      for (const event of result.events) deliver(current, event);
      current.cursor = { epoch: result.epoch, seq: result.seq };
    } else {
      current.cursor = { epoch: result.epoch, seq: result.seq };
      current.handlers.onSnapshot(result.snapshot, { ...current.cursor });
    }
  };

  const deliver = (current: Subscription, event: ControlEvent) => {
    if (!current.cursor || event.seq <= current.cursor.seq) return;
    current.cursor = { epoch: current.cursor.epoch, seq: event.seq };
    current.handlers.onEvent(event);
  };

  const onLine = (line: string) => {
    let message: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: RpcError };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      socket?.destroy(new Error('the gateway sent a line that is not JSON'));
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if (message.method === 'event' && message.id === undefined) {
      if (subscription) deliver(subscription, message.params as ControlEvent);
      return;
    }
    const entry = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!entry) return;
    pending.delete(message.id as number);
    if (message.error) entry.reject(rpcToOperatorError(message.error));
    else entry.resolve(message.result);
  };

  const onClose = (which: net.Socket, why: string) => {
    if (which !== socket) return;
    socket = undefined;
    const wasReady = ready;
    ready = false;
    for (const [id, entry] of pending) {
      pending.delete(id);
      entry.reject(lost(entry.method, closed ? 'the client is closed' : `connection lost (${why})`));
    }
    if (!wasReady || closed) return; // a dial in progress reports its own failure
    options.onStatus?.('disconnected', why);
    if (options.reconnect) scheduleRetry();
  };

  const open = async () => {
    const current = await dial(endpoint, connectTimeoutMs);
    if (closed) {
      current.destroy();
      throw lost('connect', 'the client is closed');
    }
    socket = current;
    let why = 'closed by the gateway';
    const splitter = createLineSplitter(MAX_RESPONSE_LINE_BYTES, onLine, () => current.destroy(new Error('a response line is too long')));
    current.on('data', (chunk: Buffer) => splitter.push(chunk));
    current.on('error', (error) => (why = error.message));
    current.on('close', () => onClose(current, why));
    if (endpoint.token !== undefined) {
      try {
        await send('control.auth', { token: endpoint.token });
      } catch (error) {
        current.destroy();
        throw error;
      }
    }
    ready = true;
    retryMs = FIRST_RETRY_MS;
    options.onStatus?.('connected', endpoint.label);
    const active = subscription;
    if (active?.cursor) {
      send('events.subscribe', { since: active.cursor }, applySubscribeResult).catch((error: OperatorError) => active.handlers.onError?.(error));
    }
  };

  const scheduleRetry = () => {
    const delay = retryMs;
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    options.onStatus?.('retrying', `dialing ${endpoint.label} in ${delay} ms`);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      open().catch((error: OperatorError) => {
        if (closed) return;
        if (error.code === 'forbidden') return options.onStatus?.('disconnected', error.message); // a wrong token stays wrong
        scheduleRetry();
      });
    }, delay);
  };

  await open();

  const call = <T>(method: string, params?: unknown) => (ready ? send<T>(method, params) : Promise.reject(lost(method, closed ? 'the client is closed' : 'not connected')));
  return {
    target: endpoint.label,
    call,
    hello: () => call<ControlHello>('control.hello'),
    async subscribe<S, E>(handlers: SubscribeHandlers<S, E>) {
      if (subscription) throw new OperatorError('conflict', 'This control client already has a subscription', 'Unsubscribe first; one subscription per client.');
      if (!ready) throw lost('events.subscribe', 'not connected');
      const mine: Subscription = { handlers: handlers as SubscribeHandlers };
      subscription = mine;
      try {
        await send('events.subscribe', {}, applySubscribeResult);
      } catch (error) {
        if (subscription === mine) subscription = undefined;
        throw error;
      }
      return {
        async unsubscribe() {
          if (subscription !== mine) return;
          subscription = undefined;
          if (ready) await send('events.unsubscribe', {}).catch(() => undefined);
        },
      };
    },
    async close() {
      closed = true;
      subscription = undefined;
      if (retryTimer) clearTimeout(retryTimer);
      const current = socket;
      if (!current) return;
      await new Promise<void>((resolve) => {
        current.once('close', () => resolve());
        current.destroy();
      });
    },
  };
}

/** The gateway's hello when one answers on `socketPath` within `timeoutMs`, else undefined. */
export async function probeControl(socketPath: string, timeoutMs = 1_000): Promise<ControlHello | undefined> {
  let client: ControlClient | undefined;
  let expired = false;
  // Closing the client rejects a hello that never gets an answer.
  const timer = setTimeout(() => {
    expired = true;
    void client?.close();
  }, timeoutMs);
  try {
    client = await connectControl({ socketPath, connectTimeoutMs: timeoutMs });
    return expired ? undefined : await client.hello();
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    await client?.close();
  }
}

interface Endpoint {
  label: string;
  token?: string;
  dial(): net.Socket;
}

function endpointOf(options: ControlTarget): Endpoint {
  if ('socketPath' in options) return { label: options.socketPath, dial: () => net.createConnection(options.socketPath) };
  let host: string;
  let port: number;
  if ('url' in options) {
    const parsed = URL.canParse(options.url) ? new URL(options.url) : undefined;
    if (parsed?.protocol !== 'tcp:' || parsed.hostname === '' || parsed.port === '') {
      throw new OperatorError('invalid', `Control URL "${options.url}" is not tcp://host:port`, 'For example tcp://127.0.0.1:8645.');
    }
    host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    port = Number(parsed.port);
  } else {
    host = options.host;
    port = options.port;
  }
  const label = `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const endpoint: Endpoint = { label, dial: () => net.createConnection({ host, port }) };
  if (options.token !== undefined) endpoint.token = options.token;
  return endpoint;
}

function dial(endpoint: Endpoint, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = endpoint.dial();
    const fail = (why: string) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new OperatorError('unavailable', `No gateway answers on ${endpoint.label} (${why})`, 'Start one with: switchboard gateway (or check the path / URL).'));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    const onError = (error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? 'no socket file' : error.code === 'ECONNREFUSED' ? 'connection refused' : error.message);
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
