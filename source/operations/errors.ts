/**
 * What an operation fails with: a code a program can branch on, and a message that names the
 * route, job, server or config key, plus a hint saying what to do next (STYLE.md section 3).
 * The control channel carries it as a JSON-RPC error (see docs/control-protocol.md).
 */
export type OperatorErrorCode = 'not_found' | 'invalid' | 'conflict' | 'unavailable' | 'forbidden' | 'internal';

export class OperatorError extends Error {
  constructor(readonly code: OperatorErrorCode, message: string, readonly hint?: string, readonly details: string[] = []) {
    super(message);
    this.name = 'OperatorError';
  }
}

export function isOperatorError(error: unknown): error is OperatorError {
  return error instanceof OperatorError;
}
