import { describe, expect, it } from 'vitest';
import { formatRunResult } from '../../source/cli/cron-format.js';
import type { JobRunRow } from '../../source/store/jobs.js';

describe('cron run result line', () => {
  it('a failed delivery is said once', () => {
    const run: JobRunRow = {
      id: 'r1', jobId: 'j1', jobName: 'daily', trigger: 'manual', status: 'delivery_failed', reason: null, scheduledAtMs: null, queuedAtMs: 0,
      startedAtMs: 0, finishedAtMs: 12, scriptMs: null, agentRunId: 'a1', output: 'hi', error: 'delivery to telegram failed: HTTP 500',
      deliveryTarget: 'telegram', deliveryOk: false, deliveryDetail: 'HTTP 500',
    };
    expect(formatRunResult(run).status).toBe('Run r1 of daily (j1): delivery_failed in 12 ms; delivery to telegram: failed (HTTP 500)');
  });
});
