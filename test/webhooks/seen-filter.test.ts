import { describe, expect, it } from 'vitest';
import { createSeenFilter, hashKey } from '../../source/webhooks/seen-filter.js';
import { createWaitingKeys } from '../../source/webhooks/waiting-keys.js';

const HOUR = 3_600_000;

describe('the seen filter', () => {
  it('never says "no" for a key it holds, and rarely "maybe" for one it does not', () => {
    const filter = createSeenFilter(HOUR, () => 0);
    for (let n = 0; n < 200_000; n++) filter.add(`gh\nheld-${n}`);
    for (let n = 0; n < 200_000; n++) expect(filter.checkAndAdd(...hashKey(`gh\nheld-${n}`))).toBe(true);
    let maybes = 0;
    for (let n = 0; n < 100_000; n++) if (filter.checkAndAdd(...hashKey(`gh\nnew-${n}`))) maybes++;
    expect(maybes).toBeLessThan(100); // under 0.1% at this size
  });

  it('holds a key for at least one window and forgets it after two', () => {
    let now = 0;
    const filter = createSeenFilter(HOUR, () => now);
    filter.add('gh\nold');
    now = HOUR - 1;
    expect(filter.checkAndAdd(...hashKey('gh\nold'))).toBe(true);
    now = HOUR + 1; // rotated: the key is in the previous filter
    filter.add('gh\nother');
    expect(filter.checkAndAdd(...hashKey('gh\nold'))).toBe(true); // (and added again here)
    now = 3 * HOUR + 2; // two rotations later without it
    filter.add('gh\nx');
    now = 5 * HOUR + 3;
    expect(filter.checkAndAdd(...hashKey('gh\nold'))).toBe(false);
  });
});

describe('the waiting keys', () => {
  it('confirms a hash match against the key at its offset, and keeps keys whose hash is taken whole', () => {
    const at = new Map<number, string>();
    const keys = createWaitingKeys((offset) => at.get(offset));
    at.set(0, 'gh\na');
    keys.add('gh\na', 7, 0);
    expect(keys.has('gh\na', 7)).toBe(true);
    expect(keys.has('gh\nb', 7)).toBe(false); // same hash, another key
    at.set(100, 'gh\nb');
    keys.add('gh\nb', 7, 100); // collides: kept whole
    expect(keys.has('gh\nb', 7)).toBe(true);
    keys.delete('gh\na', 7, 0);
    expect(keys.has('gh\na', 7)).toBe(false);
    expect(keys.has('gh\nb', 7)).toBe(true);
    keys.delete('gh\nb', 7, 100);
    expect(keys.size).toBe(0);
  });
});
