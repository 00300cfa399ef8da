import { afterEach, describe, expect, it } from 'vitest';
import { createSampler } from '../../source/mcp/sampler.js';
import { tempHome } from '../helpers/temp-home.js';
import { call, EVERYTHING, makeManager, NODE, scriptedApprovals, servers } from '../helpers/mcp.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('sampling and advertised capabilities (server-everything)', () => {
  it('sampling: advertised only when enabled; approved requests run on the configured model; denial and the rate limit refuse', async () => {
    const home = tempHome();
    let verdict: 'approved' | 'denied' = 'approved';
    const approvals = scriptedApprovals(() => ({ status: verdict }));
    const { manager, registry } = makeManager(home.root, { approvals: approvals.requester, sample: createSampler({ provider: 'dry-run', name: 'dry-run' }) });
    cleanups.push(() => manager.stop());
    await manager.start(servers({
      on: { command: NODE, args: [EVERYTHING, 'stdio'], sampling: { enabled: true, max_requests_per_minute: 2 } },
      off: { command: NODE, args: [EVERYTHING, 'stdio'] },
    }), { wait: true });
    expect(registry.get('mcp__off__trigger_sampling_request')).toBeUndefined();
    expect(registry.get('mcp__on__trigger_sampling_request')).toBeDefined();
    // URL-mode elicitation is never advertised, so the server does not offer its URL tool.
    expect(registry.get('mcp__on__trigger_url_elicitation')).toBeUndefined();
    expect(registry.get('mcp__on__trigger_elicitation_request')).toBeDefined();

    const sampled = await call(registry, 'mcp__on__trigger_sampling_request', { prompt: 'say hi', maxTokens: 50 });
    expect(sampled.text).toContain('[dry-run] sampling request from on: Resource trigger-sampling-request context: say hi');
    expect(approvals.asked.at(-1)).toMatchObject({ tool: 'sampling', server: 'on' });

    verdict = 'denied';
    const denied = await call(registry, 'mcp__on__trigger_sampling_request', { prompt: 'again' }).catch((error: Error) => ({ text: error.message, isError: true }));
    expect(denied.text).toMatch(/sampling request not approved by the operator \(denied\)/);

    verdict = 'approved';
    const limited = await call(registry, 'mcp__on__trigger_sampling_request', { prompt: 'third' }).catch((error: Error) => ({ text: error.message, isError: true }));
    expect(limited.text).toMatch(/sampling limit of 2 requests per minute reached \(mcp_servers.on.sampling.max_requests_per_minute\)/);
  });
});
