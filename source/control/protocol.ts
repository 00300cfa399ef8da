/**
 * The control channel's wire types and the one table that maps OperatorError codes to JSON-RPC
 * error codes (docs/control-protocol.md). Shared by the server and the client, so it imports
 * nothing heavier than the OperatorError class.
 */
import { OperatorError, type OperatorErrorCode } from '../operations/errors.js';

export const PROTOCOL_VERSION = 1;

export type RpcId = string | number | null;

export interface RpcErrorData {
  code: OperatorErrorCode;
  hint?: string;
  details?: string[];
}

export interface RpcError {
  code: number;
  message: string;
  data?: RpcErrorData;
}

/** Standard JSON-RPC 2.0 codes. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

/** OperatorError code -> JSON-RPC error code. Fixed: clients branch on these numbers. */
export const OPERATOR_ERROR_CODES: Readonly<Record<OperatorErrorCode, number>> = {
  forbidden: -32001,
  invalid: -32002,
  unavailable: -32003,
  not_found: -32004,
  conflict: -32009,
  internal: RPC.internal,
};

/** One journal event: what `events.subscribe` replays and the `event` notification carries. */
export interface ControlEvent<T = unknown> {
  seq: number;
  type: string;
  data: T;
  atMs: number;
}

/**
 * A subscriber's view of the stream (`events.subscribe` with `"view": name`): the event as that kind
 * of client uses it (large fields it never reads left out), or `undefined` to skip it. The seq is kept,
 * so resume works the same; a view must not depend on anything but the event.
 */
export type EventView = (event: ControlEvent) => ControlEvent | undefined;

/** Where a subscriber left off; `epoch` changes with every gateway start. */
export interface EventCursor {
  epoch: string;
  seq: number;
}

export type SubscribeResult =
  | { mode: 'resume'; epoch: string; seq: number; events: ControlEvent[] }
  | { mode: 'snapshot'; epoch: string; seq: number; snapshot: unknown };

/** `control.hello`: the gateway's identity (pid, version, home, mode, ...) plus the protocol version. */
export type ControlHello = { protocol: number } & Record<string, unknown>;

export function rpcError(code: number, message: string, data: RpcErrorData): RpcError {
  return { code, message, data };
}

export function operatorErrorToRpc(error: OperatorError): RpcError {
  const data: RpcErrorData = { code: error.code };
  if (error.hint !== undefined) data.hint = error.hint;
  if (error.details.length > 0) data.details = error.details;
  return rpcError(OPERATOR_ERROR_CODES[error.code] ?? RPC.internal, error.message, data);
}

const operatorCodes = new Set(Object.keys(OPERATOR_ERROR_CODES));

/** Re-creates the OperatorError a server sent; a peer without `data.code` gets a code from the number. */
export function rpcToOperatorError(error: RpcError): OperatorError {
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as Partial<RpcErrorData>;
  const code = typeof data.code === 'string' && operatorCodes.has(data.code) ? data.code : codeFromNumber(error.code);
  const hint = typeof data.hint === 'string' ? data.hint : undefined;
  const details = Array.isArray(data.details) ? data.details.filter((item): item is string => typeof item === 'string') : [];
  return new OperatorError(code, typeof error.message === 'string' ? error.message : 'Gateway error', hint, details);
}

function codeFromNumber(code: number): OperatorErrorCode {
  const known = Object.entries(OPERATOR_ERROR_CODES).find(([, value]) => value === code);
  if (known) return known[0] as OperatorErrorCode;
  if (code === RPC.methodNotFound) return 'not_found';
  if (code === RPC.parseError || code === RPC.invalidRequest || code === RPC.invalidParams) return 'invalid';
  return 'internal';
}
