import { describe, expect, it } from 'vitest';
import { repeatedFailure } from '../../source/infra/repeated-failure.js';

describe('repeatedFailure', () => {
  it('says a failing background pass once with its cause, once when it works again, and again at the next outage', () => {
    const lines: Array<[string, string, unknown]> = [];
    const logger = {
      warn: (fields: { err: unknown }, msg: string) => lines.push(['warn', msg, fields.err]),
      info: (msg: string) => lines.push(['info', msg, undefined]),
    };
    const pass = repeatedFailure(logger as never, 'The cluster heartbeat');
    pass.worked();
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    for (let i = 0; i < 5; i += 1) pass.failed(down);
    pass.worked();
    pass.worked();
    pass.failed(new Error('again'));
    expect(lines).toEqual([
      ['warn', 'The cluster heartbeat failed; trying again (said once until it works again)', down],
      ['info', 'The cluster heartbeat works again (after 5 failed tries)', undefined],
      ['warn', 'The cluster heartbeat failed; trying again (said once until it works again)', expect.objectContaining({ message: 'again' })],
    ]);
  });
});
