import type { Logger } from 'pino';

/**
 * A background pass (a heartbeat, a read of other nodes' requests) that fails on every try while
 * its database is down: said once with its cause, then once when it works again, instead of a
 * stack trace every few seconds for as long as the outage lasts.
 */
export function repeatedFailure(logger: Pick<Logger, 'warn' | 'info'>, what: string) {
  let failures = 0;
  return {
    failed(error: unknown): void {
      failures += 1;
      if (failures === 1) logger.warn({ err: error }, `${what} failed; trying again (said once until it works again)`);
    },
    worked(): void {
      if (failures > 0) logger.info(`${what} works again (after ${failures} failed ${failures === 1 ? 'try' : 'tries'})`);
      failures = 0;
    },
  };
}
