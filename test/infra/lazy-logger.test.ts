import { describe, expect, it } from 'vitest';
import { lazyLogger } from '../../source/infra/lazy-logger.js';
import { captureLogger } from '../helpers/webhooks.js';

describe('lazyLogger', () => {
  it('makes the logger on the first line, keeps child bindings and levels, and makes it once', () => {
    const { logger: real, log } = captureLogger('info');
    let made = 0;
    const logger = lazyLogger(() => {
      made += 1;
      return real;
    });
    const child = logger.child({ component: 'scheduler' });
    const grandchild = child.child({ jobId: 'j1' });
    expect(made).toBe(0);
    grandchild.info('fired');
    logger.debug('below the level');
    logger.warn({ route: 'demo' }, 'slow');
    expect(made).toBe(1);
    expect(log.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ component: 'scheduler', jobId: 'j1', msg: 'fired', level: 30 }),
      expect.objectContaining({ route: 'demo', msg: 'slow', level: 40 }),
    ]);
    logger.level = 'debug';
    logger.debug('now shown');
    expect(log.lines).toHaveLength(3);
  });
});
