/**
 * What the server decides about one request line without I/O: is it a valid JSON-RPC request,
 * and the answers of the built-in methods (`control.*`, `events.*`).
 */
import type { EventJournal } from './journal.js';
import { OPERATOR_ERROR_CODES, PROTOCOL_VERSION, RPC, rpcError, type ControlEvent, type EventCursor, type EventView, type RpcError, type RpcId, type SubscribeResult } from './protocol.js';

export type Outcome = { result: unknown } | { error: RpcError };

export interface CheckedRequest {
  /** `undefined` on a notification. */
  id: RpcId | undefined;
  method: string;
  params: unknown;
}

export interface BuiltInContext {
  hello: () => object;
  snapshot: () => unknown;
  journal: EventJournal;
  /** The views a subscriber may ask for by name (`view`); an unknown name gets the whole stream. */
  views?: Readonly<Record<string, EventView>>;
  /**
   * Adds the connection to the event fan-out, or removes it; `operator`: a console, whose operator
   * decides approvals; `view`: the known view it asked for.
   */
  setSubscribed(subscribed: boolean, operator?: boolean, view?: string): void;
}

/** A request object, or the id to answer with and why it is not one. */
export function checkRequest(message: unknown): CheckedRequest | { id: RpcId; reason: string } {
  if (Array.isArray(message)) return { id: null, reason: 'batches are not supported; send one request per line' };
  if (!isRecord(message)) return { id: null, reason: 'expected a JSON object' };
  const rawId = message.id;
  const idOk = rawId === undefined || rawId === null || typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId));
  if (!idOk) return { id: null, reason: '"id" must be a string, a number or null' };
  const id = rawId as RpcId | undefined;
  if (message.jsonrpc !== '2.0') return { id: id ?? null, reason: '"jsonrpc" must be "2.0"' };
  if (typeof message.method !== 'string' || message.method === '') return { id: id ?? null, reason: '"method" must be a non-empty string' };
  if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) {
    return { id: id ?? null, reason: '"params" must be an object or an array when present' };
  }
  return { id, method: message.method, params: message.params };
}

/** The built-in method's answer, or `undefined` when `method` is not one (it goes to dispatch). Throws what hello() or snapshot() throw. */
export function answerBuiltIn(method: string, params: unknown, ctx: BuiltInContext): Outcome | undefined {
  switch (method) {
    case 'control.hello':
      if (!optionalObject(params)) return invalidParams(method, 'an object or nothing');
      return { result: { ...ctx.hello(), protocol: PROTOCOL_VERSION } };
    case 'control.auth': // already authenticated, or a listener without a token
      if (!isRecord(params) || typeof params.token !== 'string') return invalidParams(method, '{"token": "<string>"}');
      return { result: { authenticated: true } };
    case 'events.subscribe':
      return subscribe(params, ctx);
    case 'events.unsubscribe':
      if (!optionalObject(params)) return invalidParams(method, 'an object or nothing');
      ctx.setSubscribed(false);
      return { result: {} };
    default:
      return undefined;
  }
}

/** Synchronous from the journal read to setSubscribed: no event can fall between the result and the stream. */
function subscribe(params: unknown, ctx: BuiltInContext): Outcome {
  const cursor = subscribeCursor(params);
  if (cursor === false) return invalidParams('events.subscribe', '{"since"?: {"epoch": "<string>", "seq": <integer ≥ 0>}, "operator"?: <boolean>, "view"?: "<string>"}');
  const { journal } = ctx;
  const asked = isRecord(params) && typeof params.view === 'string' ? params.view : undefined;
  const view = asked !== undefined && ctx.views && Object.hasOwn(ctx.views, asked) ? asked : undefined;
  const missed = cursor ? journal.since(cursor.seq, cursor.epoch) : undefined;
  const result: SubscribeResult = missed
    ? { mode: 'resume', epoch: journal.epoch, seq: journal.seq, events: view ? viewed(missed, ctx.views![view]!) : missed }
    : { mode: 'snapshot', epoch: journal.epoch, seq: journal.seq, snapshot: ctx.snapshot() };
  ctx.setSubscribed(true, isRecord(params) && params.operator === true, view);
  return { result };
}

function viewed(events: ControlEvent[], view: EventView): ControlEvent[] {
  const kept: ControlEvent[] = [];
  for (const event of events) {
    const shown = view(event);
    if (shown) kept.push(shown);
  }
  return kept;
}

/** `undefined`: no cursor (snapshot); `false`: malformed params. */
function subscribeCursor(params: unknown): EventCursor | undefined | false {
  if (!optionalObject(params)) return false;
  if (params?.operator !== undefined && typeof params.operator !== 'boolean') return false;
  if (params?.view !== undefined && typeof params.view !== 'string') return false;
  const since = params?.since;
  if (since === undefined) return undefined;
  if (!isRecord(since) || typeof since.epoch !== 'string' || !Number.isSafeInteger(since.seq) || (since.seq as number) < 0) return false;
  return { epoch: since.epoch, seq: since.seq as number };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalObject(value: unknown): value is Record<string, unknown> | undefined {
  return value === undefined || isRecord(value);
}

function invalidParams(method: string, expected: string): Outcome {
  return { error: rpcError(RPC.invalidParams, `Invalid params for ${method}: expected ${expected}`, { code: 'invalid' }) };
}

export function forbidden(message: string, hint?: string): RpcError {
  return rpcError(OPERATOR_ERROR_CODES.forbidden, message, hint === undefined ? { code: 'forbidden' } : { code: 'forbidden', hint });
}

export function internalError(method?: string): RpcError {
  const where = method ? ` in ${method}` : '';
  return rpcError(RPC.internal, `Internal error${where}; the details are in the gateway log`, { code: 'internal', hint: 'See $SWITCHBOARD_HOME/logs/gateway.log.' });
}

export function methodNotFound(method: string): RpcError {
  return rpcError(RPC.methodNotFound, `Method not found: ${method}`, { code: 'not_found', hint: 'Operation methods are named domain.verb (docs/control-protocol.md).' });
}
