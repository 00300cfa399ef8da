import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIntakeSummary, SUMMARY_INTERVAL_MS } from '../../source/webhooks/intake-summary.js';
import { captureLogger } from '../helpers/webhooks.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the intake summary: accepted and duplicate requests counted per route, one info line per interval', () => {
  it('writes one line per route after the interval, then nothing while nothing arrives', () => {
    vi.useFakeTimers();
    const { logger, log } = captureLogger('info');
    const summary = createIntakeSummary({ logger, now: () => Date.now() });
    for (let i = 0; i < 5; i++) summary.count('gh', 'accepted');
    summary.count('gh', 'duplicate');
    summary.count('gl', 'accepted');
    vi.advanceTimersByTime(SUMMARY_INTERVAL_MS - 1);
    expect(log.lines).toEqual([]);
    vi.advanceTimersByTime(1);
    const lines = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, route: 'gh', accepted: 5, duplicate: 1, seconds: 10, msg: 'Webhooks on route gh in the last 10 s: 5 accepted, 1 duplicate' }),
      expect.objectContaining({ level: 30, route: 'gl', accepted: 1, duplicate: 0, seconds: 10, msg: 'Webhooks on route gl in the last 10 s: 1 accepted' }),
    ]);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(SUMMARY_INTERVAL_MS * 3);
    expect(log.lines).toHaveLength(2);
    summary.count('gh', 'accepted');
    vi.advanceTimersByTime(SUMMARY_INTERVAL_MS);
    expect(JSON.parse(log.lines[2]!)).toMatchObject({ route: 'gh', accepted: 1, duplicate: 0 });
  });

  it('close() writes out what is counted so far and stops the timer', () => {
    vi.useFakeTimers();
    const { logger, log } = captureLogger('info');
    const summary = createIntakeSummary({ logger, now: () => Date.now() });
    summary.count('gh', 'accepted');
    vi.advanceTimersByTime(3_000);
    summary.close();
    expect(log.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['Webhooks on route gh in the last 3 s: 1 accepted']);
    expect(vi.getTimerCount()).toBe(0);
    summary.close();
    expect(log.lines).toHaveLength(1);
  });
});
