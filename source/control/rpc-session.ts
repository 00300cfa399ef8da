/** The client side of one connection: numbered requests, their responses, notifications. */
import type net from 'node:net';
import { OperatorError } from '../operations/errors.js';
import { createLineSplitter } from './framing.js';
import { rpcToOperatorError, type RpcError } from './protocol.js';

/** Responses can carry a whole snapshot; this only stops a runaway peer. */
const MAX_RESPONSE_LINE_BYTES = 256 * 1024 * 1024;

export interface RpcSession {
  /** `onResult` runs synchronously with the response line, before any later line is handled. */
  request<T>(method: string, params?: unknown, onResult?: (result: unknown) => T): Promise<T>;
  /** Ends the connection; pending requests fail saying `why`. Resolves once closed. */
  close(why: string): Promise<void>;
}

export interface SessionHooks {
  /** The socket path or tcp:// URL, for messages. */
  label: string;
  onNotification(method: string, params: unknown): void;
  /** After the socket closed and every pending request was rejected. */
  onClose(why: string): void;
}

interface Pending {
  method: string;
  settle(result: unknown): void;
  reject(error: Error): void;
}

export function unavailable(label: string, method: string, why: string): OperatorError {
  return new OperatorError('unavailable', `No connection to the gateway at ${label} for ${method}: ${why}`, 'Check that the gateway is running (switchboard status), then try again.');
}

export function createRpcSession(socket: net.Socket, hooks: SessionHooks): RpcSession {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let why = 'connection lost (closed by the gateway)';

  const onLine = (line: string) => {
    let message: { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: RpcError };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      socket.destroy(new Error('the gateway sent a line that is not JSON'));
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if (typeof message.method === 'string' && message.id === undefined) return hooks.onNotification(message.method, message.params);
    const entry = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!entry) return;
    pending.delete(message.id as number);
    if (message.error) entry.reject(rpcToOperatorError(message.error));
    else entry.settle(message.result);
  };

  const splitter = createLineSplitter(MAX_RESPONSE_LINE_BYTES, onLine, () => socket.destroy(new Error('a response line is too long')));
  socket.on('data', (chunk: Buffer) => splitter.push(chunk));
  socket.on('error', (error) => (why = `connection lost (${error.message})`));
  socket.on('close', () => {
    splitter.stop();
    for (const [id, entry] of pending) {
      pending.delete(id);
      entry.reject(unavailable(hooks.label, entry.method, why));
    }
    hooks.onClose(why);
  });

  return {
    request<T>(method: string, params?: unknown, onResult: (result: unknown) => T = (result) => result as T) {
      if (socket.destroyed) return Promise.reject(unavailable(hooks.label, method, why));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const settle = (result: unknown) => {
          try {
            resolve(onResult(result));
          } catch (error) {
            reject(error as Error);
          }
        };
        pending.set(id, { method, settle, reject });
        socket.write(`${JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    close(reason) {
      if (socket.closed) return Promise.resolve();
      why = reason;
      return new Promise((resolve) => {
        socket.once('close', () => resolve());
        socket.destroy();
      });
    },
  };
}
