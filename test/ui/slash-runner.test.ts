import { describe, expect, it } from 'vitest';
import type { Operations } from '../../source/operations/index.js';
import { runCoreSlash } from '../../source/ui/slash-runner.js';

describe('/cron pause, resume and remove', () => {
  it('say what they are doing, then what they did', async () => {
    const job = { name: 'nightly', id: 'abcd1234' };
    const ops = { jobs: { pause: async () => ({ job }), resume: async () => ({ job }), remove: async () => ({ job }) } } as unknown as Operations;
    const replies = ['pause', 'resume', 'remove'].map((verb) => runCoreSlash(ops, 'cron', `${verb} nightly`, 0)!);
    expect(replies.map((reply) => reply.now)).toEqual(['Pausing nightly...', 'Resuming nightly...', 'Removing nightly...']);
    expect(await Promise.all(replies.map((reply) => reply.later))).toEqual(['Paused job nightly (abcd1234).', 'Resumed job nightly (abcd1234).', 'Removed job nightly (abcd1234).']);
  });
});
