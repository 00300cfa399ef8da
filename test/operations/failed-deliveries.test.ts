import { describe, expect, it } from 'vitest';
import { createReadModel, type GatewayEvent, type GatewayState } from '../../source/operations/state.js';

const initial = (failedDeliveries: number): GatewayState => ({
  gateway: { jobs: { running: [] } } as unknown as GatewayState['gateway'],
  approvals: [], approvalHistory: [], grants: [], mcpServers: [], jobs: [], webhooks: [], outputs: [], logs: [], runsInFlight: [], failedDeliveries,
});
const finished = (recordId: string, ok: boolean): GatewayEvent => ({
  type: 'delivery.finished',
  data: { target: 'telegram:1', subject: { kind: 'console', runId: 'r' }, result: ok ? { ok, detail: 'sent', recordId } : { ok, reason: 'down', recordId } },
});

describe('failed deliveries count', () => {
  it('counts each failed or uncertain delivery once, through retries, until it succeeds', async () => {
    const model = createReadModel(initial(2));
    await model.seedFailed(Promise.resolve(['old', 'uncertain']));
    expect(model.state().failedDeliveries).toBe(2);
    model.apply(finished('d1', false));
    model.apply(finished('d1', false)); // retried, failed again
    model.apply(finished('d1', false));
    expect(model.state().failedDeliveries).toBe(3);
    model.apply(finished('d1', true));
    model.apply(finished('uncertain', true));
    expect(model.state().failedDeliveries).toBe(1);
  });

  it('lays outcomes seen while the seed is read over it', async () => {
    const model = createReadModel(initial(1));
    let list: (ids: string[]) => void = () => {};
    const seeded = model.seedFailed(new Promise((resolve) => { list = resolve; }));
    model.apply(finished('old', true));
    model.apply(finished('d2', false));
    list(['old']);
    expect(await seeded).toBe(true);
    expect(model.state().failedDeliveries).toBe(1);
  });
});
