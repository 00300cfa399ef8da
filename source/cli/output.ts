import { ConfigError } from '../config/errors.js';
import { GatewayLockedError } from '../gateway/lock.js';
import { OperatorError } from '../operations/errors.js';

/** Commands print results on stdout and everything meant for the operator's eyes on stderr. */
export function say(line = ''): void {
  process.stderr.write(`${line}\n`);
}

export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** A readable error for the operator: what, where, what next. Returns the exit code. */
export function reportError(error: unknown): number {
  if (error instanceof ConfigError || error instanceof OperatorError) {
    say(`error: ${error.message}`);
    for (const detail of error.details) say(`  - ${detail}`);
    if (error.hint) say(`  ${error.hint}`);
    return 1;
  }
  if (error instanceof GatewayLockedError) {
    say(`error: ${error.message}`);
    say(`  ${error.hint}`);
    return 1;
  }
  say(`error: ${(error as Error)?.stack ?? String(error)}`);
  return 1;
}
