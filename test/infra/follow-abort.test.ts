import { describe, expect, it } from 'vitest';
import { followAbort } from '../../source/infra/follow-abort.js';

describe('followAbort', () => {
  it('aborts the controller with the signal\'s reason, at once when it already was, and stops following when told', () => {
    const caller = new AbortController();
    const run = new AbortController();
    const unfollow = followAbort(run, caller.signal);
    caller.abort('stopping');
    expect(run.signal.reason).toBe('stopping');
    unfollow();

    const early = new AbortController();
    early.abort('gone');
    const late = new AbortController();
    followAbort(late, early.signal);
    expect(late.signal.reason).toBe('gone');

    const later = new AbortController();
    const other = new AbortController();
    followAbort(other, later.signal)();
    later.abort();
    expect(other.signal.aborted).toBe(false);
    expect(followAbort(new AbortController(), undefined)).toBeTypeOf('function');
  });
});
