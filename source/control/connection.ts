/**
 * One attached client on the server side: framing, request checks, authentication, the built-in
 * methods and dispatch. Nothing a client sends may throw out of here or stall the gateway.
 */
import type net from 'node:net';
import { isOperatorError } from '../operations/errors.js';
import { createLineSplitter } from './framing.js';
import type { EventJournal } from './journal.js';
import { OPERATOR_ERROR_CODES, operatorErrorToRpc, PROTOCOL_VERSION, RPC, rpcError, type EventCursor, type RpcError, type RpcId, type SubscribeResult } from './protocol.js';
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
  /** Adds or removes this connection from the event fan-out. */
  setSubscribed(connection: ControlConnection, subscribed: boolean): void;
}

export interface ControlConnection {
  readonly client: ClientInfo;
  /** Writes one framed line, or drops the client when it has stopped reading. */
  sendLine(line: string): void;
  destroy(): void;
}

/** Requests dispatched at once per client; past this the socket stops being read until some finish. */
const MAX_IN_FLIGHT = 64;
/** How long a closing connection may take to flush its last error before it is cut. */
const CLOSE_GRACE_MS = 2_000;

type Outcome = { result: unknown } | { error: RpcError };

export function handleConnection(socket: net.Socket, ctx: ConnectionContext): ControlConnection {
  const { client, logger } = ctx;
  let authenticated = ctx.token === undefined;
  let closing = false;
  let inFlight = 0;

  const sendLine = (line: string) => {
    if (closing || socket.destroyed) return;
    if (socket.writableLength > ctx.maxBufferedBytes) {
      logger.warn({ client, bufferedBytes: socket.writableLength }, `Control client ${client.id} stopped reading (over ${ctx.maxBufferedBytes} bytes queued); disconnected`);
      socket.destroy();
      return;
    }
    socket.write(line);
  };
  const connection: ControlConnection = { client, sendLine, destroy: () => socket.destroy() };

  const respond = (id: RpcId | undefined, outcome: Outcome) => {
    if (id === undefined) return; // a notification never gets an answer
    let line: string;
    try {
      line = JSON.stringify('error' in outcome ? { jsonrpc: '2.0', id, error: outcome.error } : { jsonrpc: '2.0', id, result: outcome.result ?? null });
    } catch (error) {
      logger.error({ client, err: error }, 'Control result could not be serialized as JSON');
      line = JSON.stringify({ jsonrpc: '2.0', id, error: internalError() });
    }
    sendLine(`${line}\n`);
  };

  const closeWith = (id: RpcId | undefined, error: RpcError) => {
    if (closing) return;
    respond(id ?? null, { error });
    closing = true;
    splitter.stop();
    socket.end();
    socket.resume(); // read and discard whatever is still coming, so the peer sees the error
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };

  const builtIn = (method: string, params: unknown): Outcome | undefined => {
    switch (method) {
      case 'control.hello':
        if (!optionalObject(params)) return invalidParams(method, 'an object or nothing');
        return { result: { ...ctx.hello(), protocol: PROTOCOL_VERSION } };
      case 'control.auth':
        if (!isRecord(params) || typeof params.token !== 'string') return invalidParams(method, '{"token": "<string>"}');
        return { result: { authenticated: true } };
      case 'events.subscribe':
        return subscribe(params);
      case 'events.unsubscribe':
        if (!optionalObject(params)) return invalidParams(method, 'an object or nothing');
        ctx.setSubscribed(connection, false);
        return { result: {} };
      default:
        return undefined;
    }
  };

  const subscribe = (params: unknown): Outcome => {
    const cursor = subscribeCursor(params);
    if (cursor === false) return invalidParams('events.subscribe', '{"since"?: {"epoch": "<string>", "seq": <integer ≥ 0>}}');
    // Synchronous from here to the response: no journal event can fall between the result and the first notification.
    const { journal } = ctx;
    const missed = cursor ? journal.since(cursor.seq, cursor.epoch) : undefined;
    let result: SubscribeResult;
    if (missed) {
      result = { mode: 'resume', epoch: journal.epoch, seq: journal.seq, events: missed };
    } else {
      try {
        result = { mode: 'snapshot', epoch: journal.epoch, seq: journal.seq, snapshot: ctx.snapshot() };
      } catch (error) {
        logger.error({ client, err: error }, 'Gateway snapshot failed for events.subscribe');
        return { error: internalError() };
      }
    }
    ctx.setSubscribed(connection, true);
    return { result };
  };

  const authenticate = (id: RpcId | undefined, method: string, params: unknown) => {
    const hint = 'Call control.auth with {"token": "..."} first: the value of the environment variable control.token_env names on the gateway host.';
    if (method !== 'control.auth') return closeWith(id, forbidden('Not authenticated: the first request on this TCP connection must be control.auth; connection closed', hint));
    const token = isRecord(params) && typeof params.token === 'string' ? params.token : undefined;
    if (token === undefined) return closeWith(id, forbidden('control.auth needs params {"token": "<string>"}; connection closed', hint));
    if (!tokenMatches(ctx.token!, token)) {
      logger.warn({ client }, `Control client ${client.id} sent a wrong token; connection closed`);
      return closeWith(id, forbidden('Wrong token; connection closed', hint));
    }
    authenticated = true;
    socket.setTimeout(0);
    respond(id, { result: { authenticated: true } });
  };

  const dispatch = (id: RpcId | undefined, method: string, params: unknown) => {
    inFlight += 1;
    new Promise<unknown>((resolve) => resolve(ctx.dispatch(method, params, client)))
      .then(
        (result) => respond(id, { result }),
        (error: unknown) => {
          if (isOperatorError(error)) return respond(id, { error: operatorErrorToRpc(error) });
          logger.error({ client, method, err: error }, `Control method ${method} failed`);
          respond(id, { error: internalError(method) });
        },
      )
      .finally(() => {
        inFlight -= 1;
        if (inFlight < MAX_IN_FLIGHT && !closing && !socket.destroyed) socket.resume();
      });
  };

  const onLine = (line: string) => {
    // Before authentication any malformed line ends the connection, like a wrong token.
    const refuse = (id: RpcId, error: RpcError) => (authenticated ? respond(id, { error }) : closeWith(id, error));
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
    const outcome = builtIn(method, params);
    if (outcome) return respond(id, outcome);
    if (method.startsWith('control.') || method.startsWith('events.') || (ctx.hasMethod && !ctx.hasMethod(method))) {
      return respond(id, { error: rpcError(RPC.methodNotFound, `Method not found: ${method}`, { code: 'not_found', hint: 'Operation methods are named domain.verb (docs/control-protocol.md).' }) });
    }
    dispatch(id, method, params);
  };

  const splitter = createLineSplitter(ctx.maxLineBytes, onLine, () => {
    logger.warn({ client }, `Control client ${client.id} sent a line over ${ctx.maxLineBytes} bytes; disconnected`);
    closeWith(null, rpcError(RPC.invalidRequest, `Line longer than ${ctx.maxLineBytes} bytes; connection closed`, { code: 'invalid' }));
  });

  socket.on('data', (chunk: Buffer) => {
    splitter.push(chunk);
    if (inFlight >= MAX_IN_FLIGHT && !closing) socket.pause();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') logger.warn({ client, err: error }, `Control client ${client.id} connection error`);
  });
  socket.on('close', () => {
    closing = true;
    splitter.stop();
    ctx.setSubscribed(connection, false);
  });
  if (!authenticated) {
    socket.setTimeout(ctx.authTimeoutMs, () => closeWith(null, forbidden(`No control.auth within ${ctx.authTimeoutMs} ms; connection closed`)));
  }
  return connection;
}

function checkRequest(message: unknown): { id: RpcId | undefined; method: string; params: unknown } | { id: RpcId; reason: string } {
  if (Array.isArray(message)) return { id: null, reason: 'batches are not supported; send one request per line' };
  if (!isRecord(message)) return { id: null, reason: 'expected a JSON object' };
  const rawId = message.id;
  const idOk = rawId === undefined || rawId === null || typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId));
  const id = idOk ? (rawId as RpcId | undefined) : null;
  if (!idOk) return { id: null, reason: '"id" must be a string, a number or null' };
  if (message.jsonrpc !== '2.0') return { id: id ?? null, reason: '"jsonrpc" must be "2.0"' };
  if (typeof message.method !== 'string' || message.method === '') return { id: id ?? null, reason: '"method" must be a non-empty string' };
  if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) {
    return { id: id ?? null, reason: '"params" must be an object or an array when present' };
  }
  return { id, method: message.method, params: message.params };
}

/** `undefined`: no cursor (snapshot); `false`: malformed params. */
function subscribeCursor(params: unknown): EventCursor | undefined | false {
  if (!optionalObject(params)) return false;
  const since = params?.since;
  if (since === undefined) return undefined;
  if (!isRecord(since) || typeof since.epoch !== 'string' || !Number.isSafeInteger(since.seq) || (since.seq as number) < 0) return false;
  return { epoch: since.epoch, seq: since.seq as number };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalObject(value: unknown): value is Record<string, unknown> | undefined {
  return value === undefined || isRecord(value);
}

function invalidParams(method: string, expected: string): Outcome {
  return { error: rpcError(RPC.invalidParams, `Invalid params for ${method}: expected ${expected}`, { code: 'invalid' }) };
}

function forbidden(message: string, hint?: string): RpcError {
  return rpcError(OPERATOR_ERROR_CODES.forbidden, message, hint === undefined ? { code: 'forbidden' } : { code: 'forbidden', hint });
}

function internalError(method?: string): RpcError {
  const where = method ? ` in ${method}` : '';
  return rpcError(RPC.internal, `Internal error${where}; the details are in the gateway log`, { code: 'internal', hint: 'See $SWITCHBOARD_HOME/logs/gateway.log.' });
}
