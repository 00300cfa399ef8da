import { describe, expect, it } from 'vitest';
import { formatRunResult, formatRunTable } from '../../source/cli/cron-format.js';
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

  it('a failed run that also went without a skill says both', () => {
    const run: JobRunRow = {
      id: 'r2', jobId: 'j1', jobName: 'daily', trigger: 'manual', status: 'error', reason: 'ran without skill(s): skill "tone" not found (/h/skills/tone/SKILL.md)', scheduledAtMs: null,
      queuedAtMs: 0, startedAtMs: 0, finishedAtMs: 5, scriptMs: null, agentRunId: 'a2', output: '', error: 'agent run failed: HTTP 500',
      deliveryTarget: 'local', deliveryOk: true, deliveryDetail: '/h/out.md',
    };
    expect(formatRunResult(run).status).toBe('Run r2 of daily (j1): error in 5 ms - agent run failed: HTTP 500; ran without skill(s): skill "tone" not found (/h/skills/tone/SKILL.md); delivery to local: ok (/h/out.md)');
    expect(formatRunTable([run], 'UTC')).toMatch(/error {3}5 ms {2}agent run failed: HTTP 500; ran without skill\(s\): skill "tone" not fo…$/);
  });
});
