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
});
