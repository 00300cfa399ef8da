import { afterEach, describe, expect, it, vi } from 'vitest';
import { tuneHeap } from '../../source/infra/heap-tuning.js';

describe('tuneHeap (attached console)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds the young generation at the cap, lets it grow again after V8 shrank it, and puts the defaults back', () => {
    vi.useFakeTimers();
    const flags: string[] = [];
    let newSpace = 4 * 1024 * 1024;
    const stop = tuneHeap({ growingPercent: 30, maxNewSpaceBytes: 16 * 1024 * 1024, checkMs: 100 }, { setFlags: (text) => flags.push(text), newSpaceBytes: () => newSpace });
    expect(flags).toEqual(['--heap-growing-percent=30', '--semi-space-growth-factor=2']);

    newSpace = 8 * 1024 * 1024;
    vi.advanceTimersByTime(100);
    expect(flags).toHaveLength(2); // still below the cap: nothing to change

    newSpace = 16 * 1024 * 1024;
    vi.advanceTimersByTime(100);
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=1');

    newSpace = 8 * 1024 * 1024; // V8 shrank it while idle
    vi.advanceTimersByTime(100);
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=2');

    stop();
    expect(flags.at(-1)).toBe('--heap-growing-percent=0 --semi-space-growth-factor=2');
    const count = flags.length;
    vi.advanceTimersByTime(1000);
    expect(flags).toHaveLength(count);
  });
});
