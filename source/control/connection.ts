/**
 * One attached client on the server side: framing, back-pressure, authentication and dispatch.
 * Nothing a client sends may throw out of here or stall the gateway.
 */
import type net from 'node:net';
import { isOperatorError } from '../operations/errors.js';
import { createLineSplitter } from './framing.js';
import type { EventJournal } from './journal.js';
import { answerBuiltIn, checkRequest, forbidden, internalError, isRecord, methodNotFound, type Outcome } from './methods.js';
import { operatorErrorToRpc, RPC, rpcError, type EventView, type RpcError, type RpcId } from './protocol.js';
import { tokenMatches } from './tcp-guard.js';

export interface ClientInfo {
  /** Unique per server start, for logs. */
  id: number;
  transport: 'unix' | 'tcp';
  remoteAddress?: string;
}

/** pino's Logger fits; only these three levels are used. */
export interface ControlLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export type Dispatch = (method: string, params: unknown, client: ClientInfo) => Promise<unknown>;

export interface ConnectionContext {
  client: ClientInfo;
  /** Set on a TCP listener with a token: the first request must be `control.auth` with it. */
  token?: string;
  maxLineBytes: number;
  maxBufferedBytes: number;
  authTimeoutMs: number;
  logger: ControlLogger;
  dispatch: Dispatch;
  hasMethod?: (method: string) => boolean;
  hello: () => object;
  snapshot: () => unknown;
  journal: EventJournal;
  views?: Readonly<Record<string, EventView>>;
  /** Adds or removes this connection from the event fan-out (`view`: the known view it asked for). */
  setSubscribed(connection: ControlConnection, subscribed: boolean, operator?: boolean, view?: string): void;
}

export interface ControlConnection {
  readonly client: ClientInfo;
  /** Writes one framed line, or drops the client when it has stopped reading. */
  sendLine(line: string): void;
  destroy(): void;
}

/** Requests dispatched at once per client; past this the socket stops being read until one finishes. */
const MAX_IN_FLIGHT = 64;
/** How long a closing connection may take to flush its last error before it is cut. */
const CLOSE_GRACE_MS = 2_000;
const AUTH_HINT = 'Call control.auth with {"token": "..."} first: the value of the environment variable control.token_env names on the gateway host.';

export function handleConnection(socket: net.Socket, ctx: ConnectionContext): ControlConnection {
  const { client, logger } = ctx;
  const wire = createWire(socket, ctx, () => splitter.stop());
  const connection: ControlConnection = { client, sendLine: wire.sendLine, destroy: () => socket.destroy() };
  const builtIns = {
    hello: ctx.hello,
    snapshot: ctx.snapshot,
    journal: ctx.journal,
    ...(ctx.views ? { views: ctx.views } : {}),
    setSubscribed: (subscribed: boolean, operator = false, view?: string) => {
      streaming = subscribed;
      ctx.setSubscribed(connection, subscribed, operator, view);
    },
  };
  let authenticated = ctx.token === undefined;
  let inFlight = 0;
  let streaming = false;
  let peerEnded = false;
  // A peer that half-closes (`printf … | nc -U`) still gets its answers, and its events while subscribed.
  const finishIfDone = () => {
    if (peerEnded && inFlight === 0 && !streaming && !wire.closing()) socket.end();
  };

  const authenticate = (id: RpcId | undefined, method: string, params: unknown) => {
    if (method !== 'control.auth') return wire.closeWith(id, forbidden('Not authenticated: the first request on this TCP connection must be control.auth; connection closed', AUTH_HINT));
    const token = isRecord(params) && typeof params.token === 'string' ? params.token : undefined;
    if (token === undefined) return wire.closeWith(id, forbidden('control.auth needs params {"token": "<string>"}; connection closed', AUTH_HINT));
    if (!tokenMatches(ctx.token!, token)) {
      logger.warn({ client }, `Control client ${client.id} sent a wrong token; connection closed`);
      return wire.closeWith(id, forbidden('Wrong token; connection closed', AUTH_HINT));
    }
    authenticated = true;
    socket.setTimeout(0);
    wire.respond(id, { result: { authenticated: true } });
  };

  const dispatch = (id: RpcId | undefined, method: string, params: unknown) => {
    inFlight += 1;
    new Promise<unknown>((resolve) => resolve(ctx.dispatch(method, params, client)))
      .then((result) => wire.respond(id, { result }), (error: unknown) => {
        if (isOperatorError(error)) return wire.respond(id, { error: operatorErrorToRpc(error) });
        logger.error({ client, method, err: error }, `Control method ${method} failed`);
        wire.respond(id, { error: internalError(method) });
      })
      .finally(() => {
        inFlight -= 1;
        if (inFlight < MAX_IN_FLIGHT && !wire.closing()) socket.resume();
        finishIfDone();
      });
  };

  const onLine = (line: string) => {
    // Before authentication any malformed line ends the connection, like a wrong token.
    const refuse = (id: RpcId, error: RpcError) => (authenticated ? wire.respond(id, { error }) : wire.closeWith(id, error));
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return refuse(null, rpcError(RPC.parseError, 'Parse error: the line is not valid JSON', { code: 'invalid', hint: 'Send one JSON-RPC 2.0 object per line.' }));
    }
    const checked = checkRequest(message);
    if ('reason' in checked) return refuse(checked.id, rpcError(RPC.invalidRequest, `Invalid request: ${checked.reason}`, { code: 'invalid' }));
    const { id, method, params } = checked;
    if (!authenticated) return authenticate(id, method, params);
    let outcome: Outcome | undefined;
    try {
      outcome = answerBuiltIn(method, params, builtIns);
      if (!outcome && (method.startsWith('control.') || method.startsWith('events.') || (ctx.hasMethod && !ctx.hasMethod(method)))) outcome = { error: methodNotFound(method) };
    } catch (error) {
      // hello(), snapshot() or hasMethod() failed: the gateway's bug, not the client's
      logger.error({ client, method, err: error }, `Control method ${method} failed`);
      outcome = { error: internalError(method) };
    }
    if (outcome) return wire.respond(id, outcome);
    dispatch(id, method, params);
  };

  const splitter = createLineSplitter(ctx.maxLineBytes, onLine, () => {
    logger.warn({ client }, `Control client ${client.id} sent a line over ${ctx.maxLineBytes} bytes; disconnected`);
    wire.closeWith(null, rpcError(RPC.invalidRequest, `Line longer than ${ctx.maxLineBytes} bytes; connection closed`, { code: 'invalid' }));
  });
  socket.on('data', (chunk: Buffer) => {
    splitter.push(chunk);
    if (inFlight >= MAX_IN_FLIGHT && !wire.closing()) socket.pause();
  });
  socket.on('end', () => {
    peerEnded = true;
    finishIfDone();
  });
  socket.on('close', () => ctx.setSubscribed(connection, false));
  if (!authenticated) socket.setTimeout(ctx.authTimeoutMs, () => wire.closeWith(null, forbidden(`No control.auth within ${ctx.authTimeoutMs} ms; connection closed`)));
  return connection;
}

interface Wire {
  /** One framed line out, unless closing; drops the client when it has stopped reading. */
  sendLine(line: string): void;
  /** Answers a request; a notification (no id) gets nothing. */
  respond(id: RpcId | undefined, outcome: Outcome): void;
  /** Sends a last error, then ends the connection. */
  closeWith(id: RpcId | undefined, error: RpcError): void;
  closing(): boolean;
}

/** The outgoing half of a connection: serialization, the buffered-bytes limit, closing. `onClosing` runs once. */
function createWire(socket: net.Socket, ctx: ConnectionContext, onClosing: () => void): Wire {
  const { client, logger } = ctx;
  let closing = false;
  let corked = false;
  const markClosing = () => {
    if (!closing) onClosing();
    closing = true;
  };

  const sendLine = (line: string) => {
    if (closing || socket.destroyed) return;
    if (socket.writableLength > ctx.maxBufferedBytes) {
      logger.warn({ client, bufferedBytes: socket.writableLength }, `Control client ${client.id} stopped reading (over ${ctx.maxBufferedBytes} bytes queued); disconnected`);
      socket.destroy();
      return;
    }
    // Lines written in one turn (a burst of events) leave in one writev, not one syscall each.
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(line);
  };

  const respond = (id: RpcId | undefined, outcome: Outcome) => {
    if (id === undefined) return;
    let line: string;
    try {
      line = JSON.stringify('error' in outcome ? { jsonrpc: '2.0', id, error: outcome.error } : { jsonrpc: '2.0', id, result: outcome.result ?? null });
    } catch (error) {
      logger.error({ client, err: error }, 'Control result could not be serialized as JSON');
      line = JSON.stringify({ jsonrpc: '2.0', id, error: internalError() });
    }
    sendLine(`${line}\n`);
  };

  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') logger.warn({ client, err: error }, `Control client ${client.id} connection error`);
  });
  socket.on('close', markClosing);

  return {
    sendLine,
    respond,
    closing: () => closing,
    closeWith(id, error) {
      if (closing) return;
      respond(id ?? null, { error });
      markClosing();
      socket.end();
      socket.resume(); // read and discard whatever is still coming, so the peer gets to read the error
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    },
  };
}
