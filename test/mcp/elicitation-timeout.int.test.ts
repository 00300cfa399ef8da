import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApprovalQueue } from '../../source/agent/approval-queue.js';
import { createApprovalStore } from '../../source/store/approvals.js';
import { sqliteBackends } from '../../source/store/async-domains.js';
import { openStore } from '../../source/store/database.js';
import { call, FIXTURE_SERVER, NODE, servers, startedManager } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => unknown> = [];
afterEach(() => { for (const close of closers.splice(0)) close(); });

describe('an elicitation nobody answers (issue #18 item 22)', () => {
  it('answers cancel to the server and is recorded as expired (timed out, naming the setting), not as a cancelled run', async () => {
    const home = tempHome();
    const store = openStore(home.stateDb);
    closers.push(() => store.close());
    const approvals = createApprovalQueue({ approvals: sqliteBackends(store).approvals, logger: pino({ level: 'silent' }), policy: 'interactive', timeoutMs: 60_000 });
    const { manager, registry } = startedManager(home.root, { approvals });
    await manager.start(servers({ fx: { command: NODE, args: [FIXTURE_SERVER, 'stdio'], elicitation: { timeout: 0.3 } } }), { wait: true });

    expect((await call(registry, 'mcp__fx__ask')).text).toBe('elicitation cancel');
    const [record] = createApprovalStore(store).recent();
    expect(record).toMatchObject({ tool: 'elicitation', server: 'fx', status: 'expired', decidedBy: 'timeout', decisionReason: 'timed out: no answer within 0.3 s (mcp_servers.fx.elicitation.timeout)' });
  });
});
