import { afterEach, describe, expect, it } from 'vitest';
import { attachLink } from '../../source/operations/connect.js';
import { createReadModel, type GatewayState } from '../../source/operations/state.js';
import { preparedHome, startHost } from '../helpers/host.js';
import { waitUntil } from '../helpers/webhooks.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('deliver: origin on a headless gateway', () => {
  it('is kept in a file while no console is attached, and shown in the Output pane of the consoles attached', { timeout: 30_000 }, async () => {
    const home = preparedHome();
    const host = await startHost(home);
    const created = await host.gateway.jobs.create({ schedule: 'every 1h', prompt: 'ping the operator' });
    if (!created.ok) throw new Error(created.reason);
    expect(created.value.deliver).toBe('origin');
    const alone = await host.gateway.jobs.runNow(created.value.id);
    expect(alone.ok && alone.value.deliveryDetail).toMatch(/^no console is attached to show it; kept in /);

    const link = await attachLink({ socketPath: home.controlSocket });
    closers.push(() => link.close());
    let model: ReturnType<typeof createReadModel> | undefined;
    link.subscribe({ onSnapshot: (state: GatewayState) => { model = createReadModel(state); }, onEvent: (event) => model?.apply(event) });
    await waitUntil(() => model !== undefined, 10_000, 'the console subscribed');
    const shown = await host.gateway.jobs.runNow(created.value.id);
    expect(shown.ok && shown.value).toMatchObject({ deliveryOk: true, deliveryDetail: 'shown in the Output pane of 1 attached console(s)' });
    await waitUntil(() => model!.state().outputs.some((output) => output.text.includes('ping the operator')), 10_000, 'the output in the console');
  });
});
