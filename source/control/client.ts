/**
 * The control channel's client, used by CLI commands and attached consoles. Loaded on every CLI
 * command, so it imports node:net and the small protocol modules only.
 */
import net from 'node:net';
import { OperatorError } from '../operations/errors.js';
import type { ControlEvent, ControlHello, EventCursor, SubscribeResult } from './protocol.js';
import { createRpcSession, unavailable, type RpcSession } from './rpc-session.js';

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
  onError?(error: Error): void;
}

export interface SubscribeOptions {
  operator?: boolean;
  view?: string;
}

export interface ControlSubscription {
  unsubscribe(): Promise<void>;
}

export interface ControlClient {
  /** Rejects with the gateway's OperatorError, or OperatorError('unavailable') when the connection is absent or lost. */
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
  hello(): Promise<ControlHello>;
  /** One subscription per client; resolves once `onSnapshot` has run. */
  /**
   * `operator`: this client is a console whose operator decides approvals; `view`: a named view of the
   * stream (`"console"`: only what a console folds, docs/control-protocol.md). Both kept across reconnects.
   * A gateway that does not know the view sends every event whole: handlers must accept both.
   */
  subscribe<S = unknown, E = unknown>(handlers: SubscribeHandlers<S, E>, options?: SubscribeOptions): Promise<ControlSubscription>;
  close(): Promise<void>;
  /** The socket path or tcp:// URL, for messages. */
  readonly target: string;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2_000;

interface Subscription {
  handlers: SubscribeHandlers;
  /** A console: the gateway waits for its operator's approval decisions while one is subscribed. */
  operator: boolean;
  view?: string;
  /** Set by the first result; what a resubscription after a reconnect resumes from. */
  cursor?: EventCursor;
}

/** Connects (and authenticates, over TCP with a token); rejects with OperatorError('unavailable') when no gateway answers. */
export async function connectControl(options: ControlClientOptions): Promise<ControlClient> {
  const endpoint = endpointOf(options);
  const label = endpoint.label;
  let session: RpcSession | undefined;
  let ready = false;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let subscription: Subscription | undefined;
  const notConnected = (method: string) => Promise.reject(unavailable(label, method, closed ? 'the client is closed' : 'not connected'));

  const onNotification = (method: string, params: unknown) => {
    if (method === 'event' && subscription) deliver(subscription, params as ControlEvent);
  };

  const onClose = (which: RpcSession, why: string) => {
    if (which !== session) return;
    session = undefined;
    const wasReady = ready;
    ready = false;
    if (!wasReady || closed) return; // a dial in progress reports its own failure
    options.onStatus?.('disconnected', why);
    if (options.reconnect) scheduleRetry();
  };

  const open = async () => {
    const socket = await dial(endpoint, options.connectTimeoutMs ?? 2_000);
    if (closed) {
      socket.destroy();
      throw unavailable(label, 'connect', 'the client is closed');
    }
    const current: RpcSession = createRpcSession(socket, { label, onNotification, onClose: (why) => onClose(current, why) });
    session = current;
    if (endpoint.token !== undefined) {
      try {
        await current.request('control.auth', { token: endpoint.token });
      } catch (error) {
        await current.close('authentication failed');
        throw error;
      }
    }
    ready = true;
    retryMs = FIRST_RETRY_MS;
    options.onStatus?.('connected', label);
    const active = subscription;
    if (active?.cursor) {
      current.request('events.subscribe', { since: active.cursor, ...subscribeParams(active) }, (result) => applySubscribeResult(active, result))
        .catch((error: Error) => active.handlers.onError?.(error));
    }
  };

  const scheduleRetry = () => {
    const delay = retryMs;
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    options.onStatus?.('retrying', `dialing ${label} in ${delay} ms`);
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

  const call = <T>(method: string, params?: unknown): Promise<T> => (ready && session ? session.request<T>(method, params) : notConnected(method));
  return {
    target: label,
    call,
    hello: () => call<ControlHello>('control.hello'),
    async subscribe<S, E>(handlers: SubscribeHandlers<S, E>, options: SubscribeOptions = {}) {
      if (subscription) throw new OperatorError('conflict', 'This control client already has a subscription', 'Unsubscribe first; one subscription per client.');
      if (!ready || !session) return notConnected('events.subscribe');
      const mine: Subscription = { handlers: handlers as SubscribeHandlers, operator: options.operator === true, ...(options.view ? { view: options.view } : {}) };
      subscription = mine;
      try {
        await session.request('events.subscribe', subscribeParams(mine), (result) => applySubscribeResult(mine, result));
      } catch (error) {
        if (subscription === mine) subscription = undefined;
        throw error;
      }
      return {
        async unsubscribe() {
          if (subscription !== mine) return;
          subscription = undefined;
          await call('events.unsubscribe', {}).catch(() => undefined);
        },
      };
    },
    async close() {
      closed = true;
      subscription = undefined;
      if (retryTimer) clearTimeout(retryTimer);
      await session?.close('the client is closed');
    },
  };
}

function subscribeParams(subscription: Subscription): { operator?: true; view?: string } {
  return { ...(subscription.operator ? { operator: true } : {}), ...(subscription.view ? { view: subscription.view } : {}) };
}

function applySubscribeResult(subscription: Subscription, raw: unknown): void {
  const result = raw as SubscribeResult;
  if (result.mode === 'resume') {
    subscription.cursor ??= { epoch: result.epoch, seq: 0 };
    for (const event of result.events) deliver(subscription, event);
    subscription.cursor = { epoch: result.epoch, seq: result.seq };
  } else {
    subscription.cursor = { epoch: result.epoch, seq: result.seq };
    subscription.handlers.onSnapshot(result.snapshot, { ...subscription.cursor });
  }
}

/** Each event once, in order: anything at or before the cursor was already seen. */
function deliver(subscription: Subscription, event: ControlEvent): void {
  if (!subscription.cursor || event.seq <= subscription.cursor.seq) return;
  subscription.cursor = { epoch: subscription.cursor.epoch, seq: event.seq };
  subscription.handlers.onEvent(event);
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
