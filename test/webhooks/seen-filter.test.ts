import { describe, expect, it } from 'vitest';
import { createSeenFilter, hashKey } from '../../source/webhooks/seen-filter.js';
import { createWaitingKeys, idempotencyKey } from '../../source/webhooks/waiting-keys.js';

const HOUR = 3_600_000;

describe('the seen filter', () => {
  it('never says "no" for a key it holds, and rarely "maybe" for one it does not', () => {
    const filter = createSeenFilter(HOUR, () => 0);
    for (let n = 0; n < 200_000; n++) filter.add('gh', `held-${n}`);
    for (let n = 0; n < 200_000; n++) expect(filter.checkAndAdd(...hashKey('gh', `held-${n}`))).toBe(true);
    let maybes = 0;
    for (let n = 0; n < 100_000; n++) if (filter.checkAndAdd(...hashKey('gh', `new-${n}`))) maybes++;
    expect(maybes).toBeLessThan(100); // under 0.1% at this size
  });

  it('tells the route apart from the id: ("ab", "c") is not ("a", "bc")', () => {
    expect(hashKey('ab', 'c')).not.toEqual(hashKey('a', 'bc'));
  });

  it('holds a key for at least one window and forgets it after two', () => {
    let now = 0;
    const filter = createSeenFilter(HOUR, () => now);
    filter.add('gh', 'old');
    now = HOUR - 1;
    expect(filter.checkAndAdd(...hashKey('gh', 'old'))).toBe(true);
    now = HOUR + 1; // rotated: the key is in the previous filter
    filter.add('gh', 'other');
    expect(filter.checkAndAdd(...hashKey('gh', 'old'))).toBe(true); // (and added again here)
    now = 3 * HOUR + 2; // two rotations later without it
    filter.add('gh', 'x');
    now = 5 * HOUR + 3;
    expect(filter.checkAndAdd(...hashKey('gh', 'old'))).toBe(false);
  });
});

describe('the waiting keys', () => {
  it('confirms a slot match against the key at its offset, and keeps keys whose slot is taken whole', () => {
    const at = new Map<number, string>();
    const keys = createWaitingKeys((offset) => at.get(offset));
    at.set(0, idempotencyKey('gh', 'a'));
    keys.add('gh', 'a', 7, 0);
    expect(keys.has('gh', 'a', 7)).toBe(true);
    expect(keys.has('gh', 'b', 7)).toBe(false); // same slot, another key
    at.set(100, idempotencyKey('gh', 'b'));
    keys.add('gh', 'b', 7, 100); // collides: kept whole
    expect(keys.has('gh', 'b', 7)).toBe(true);
    keys.delete('gh', 'a', 7, 0);
    expect(keys.has('gh', 'a', 7)).toBe(false);
    expect(keys.has('gh', 'b', 7)).toBe(true);
    keys.delete('gh', 'b', 7, 100);
    expect(keys.size).toBe(0);
  });
});
