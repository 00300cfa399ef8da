import { describe, expect, it } from 'vitest';
import { describeDelivery } from '../../source/cli/deliveries-command.js';
import type { OutputDeliveryView } from '../../source/operations/deliveries.js';

describe('deliveries list rows', () => {
  it('an uncertain row shows why, as a failed one does', () => {
    const reason = 'the gateway stopped while this was being sent: it may or may not have arrived; switchboard deliveries retry <id> sends it again';
    const row: OutputDeliveryView = {
      id: '0123456789abcdef', target: 'telegram', extra: {}, subject: { kind: 'job', jobId: 'j9', jobName: 'nightly', runId: 'r' }, title: 'job nightly (j9) run r',
      runFailed: false, status: 'uncertain', chunksTotal: 1, chunksSent: 0, detail: null, error: reason, createdAtMs: 0, updatedAtMs: 0, attempts: [],
    };
    expect(describeDelivery(row).split('\n')[1]!.trim()).toBe(reason);
  });

  it('every row says how many attempts it took, one and none included, in the same place', () => {
    const row: OutputDeliveryView = {
      id: '0123456789abcdef', target: 'local', extra: {}, subject: { kind: 'job', jobId: 'j9', jobName: 'nightly', runId: 'r' }, title: 'job nightly (j9) run r',
      runFailed: false, status: 'delivered', chunksTotal: 1, chunksSent: 1, detail: '/home/cron/output/j9/x.md', error: null, createdAtMs: 0, updatedAtMs: 0,
      attempts: [{ chunk: 0, attempt: 1, atMs: 0, ok: true, status: null, error: null }],
    };
    const first = (view: OutputDeliveryView) => describeDelivery(view).split('\n')[0];
    expect(first(row)).toBe('01234567  delivered local  job nightly (j9) run r  1970-01-01 00:00:00  1 attempt(s)');
    expect(first({ ...row, status: 'failed', attempts: [] })).toBe('01234567  failed    local  job nightly (j9) run r  1970-01-01 00:00:00  0 attempt(s)');
    expect(first({ ...row, target: 'telegram', chunksTotal: 2, attempts: [row.attempts[0]!, row.attempts[0]!] })).toMatch(/00:00:00 {2}2 attempt\(s\) 1\/2 parts$/);
  });
});
