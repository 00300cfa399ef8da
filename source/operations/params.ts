import { OperatorError } from './errors.js';

/**
 * Reading an operation's params: over the control channel they are untrusted JSON, so every
 * operation checks its own and fails with OperatorError('invalid') naming the parameter.
 */
export type Params = Record<string, unknown>;

export function paramsOf(method: string, value: unknown): Params {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new OperatorError('invalid', `${method}: params must be an object`);
  return value as Params;
}

export function text(params: Params, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string' || value.trim() === '') throw new OperatorError('invalid', `${method}: "${key}" must be a non-empty string`);
  return value;
}

export function optionalText(params: Params, key: string, method: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new OperatorError('invalid', `${method}: "${key}" must be a string`);
  return value;
}

export function optionalFlag(params: Params, key: string, method: string): boolean {
  const value = params[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new OperatorError('invalid', `${method}: "${key}" must be true or false`);
  return value;
}

/** The most rows a listing hands out, and the most fires `jobs.next` previews (the CLI's options check the same ranges). */
export const MAX_ROWS = 10_000;
export const MAX_NEXT_FIRES = 1000;

export function optionalCount(params: Params, key: string, method: string, fallback: number, max = MAX_ROWS): number {
  const value = params[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new OperatorError('invalid', `${method}: "${key}" must be a whole number from 1 to ${max}`);
  }
  return value;
}

export function optionalTextList(params: Params, key: string, method: string): string[] | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new OperatorError('invalid', `${method}: "${key}" must be a list of strings`);
  return value as string[];
}

/** A refused domain request (`{ok: false, reason}`) becomes the operator's error. */
export function checked<T>(result: { ok: true; value: T } | { ok: false; reason: string }, what: string, code: OperatorError['code'] = 'invalid', hint?: string): T {
  if (result.ok) return result.value;
  throw new OperatorError(code, `${what}: ${result.reason}`, hint);
}

/** An operation domain's implementation: every verb takes the untrusted params object (checked inside). */
export type Implementation<T> = { [K in keyof T]: (params: Params) => Promise<unknown> };
