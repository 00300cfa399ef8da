import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalTimeout } from '../../source/agent/types.js';
import { renderConsole, ticks } from '../helpers/console.js';
import { waitForFrame } from '../helpers/ink.js';

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('the Approvals pane', () => {
  it('lists the session grants (v revokes one) and the decided requests, an expired one as expired', { timeout: 60_000 }, async () => {
    const view = await renderConsole({ size: { columns: 160, rows: 30 } });
    closers.push(view.close);
    const approvals = view.gateway.approvals;
    // One request approved for the session (a grant), one that expires.
    const granted = approvals.request({ origin: 'console', tool: 'write-note', server: 'notes', args: { note: 'a' } });
    const expired = new AbortController();
    const expiring = approvals.request({ origin: 'console', tool: 'delete-page', server: 'wiki', args: { page: 'Home' } }, expired.signal);
    await waitForFrame(view.lastFrame, (f) => f.includes('Approval 1 of 2'));
    const [first] = approvals.pending();
    expect(await approvals.approveForSession(first!.id, 'console')).toMatchObject({ released: 0 });
    expect((await granted).status).toBe('approved');
    expired.abort(new ApprovalTimeout('the asker waited long enough'));
    expect((await expiring).status).toBe('expired');
    await waitForFrame(view.lastFrame, (f) => !f.includes('Approval 1 of'));
    await ticks();

    view.stdin.write('4');
    await waitForFrame(view.lastFrame, (f) => f.includes('approved for the session · v revokes') && /wiki\s+delete-page\s+expired/.test(f));
    const frame = view.lastFrame()!;
    expect(frame).toMatch(/notes\s+write-note\s+approved for the session/);
    // The grant is the first row: v revokes it.
    await ticks();
    view.stdin.write('v');
    await waitForFrame(view.lastFrame, (f) => f.includes('Revoked the session grant of notes / write-note'));
    expect(approvals.grants()).toEqual([]);
    await waitForFrame(view.lastFrame, (f) => !f.includes('approved for the session · v revokes'));

    // The agent's own tools have no MCP server: the column says so.
    const asked = approvals.request({ origin: 'console', tool: 'terminal', args: { command: 'chmod 777 x' } });
    await waitForFrame(view.lastFrame, (f) => f.includes('Approval 1 of 1'));
    await approvals.resolve(approvals.pending()[0]!.id, 'denied', { reason: 'not now', by: 'console' });
    expect((await asked).status).toBe('denied');
    await waitForFrame(view.lastFrame, (f) => /built-in\s+terminal\s+denied/.test(f));
  });

  it('a request put off here and decided elsewhere replaces its "stays pending" notice', { timeout: 60_000 }, async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const approvals = view.gateway.approvals;
    const asked = approvals.request({ origin: 'console', tool: 'write-note', server: 'notes', args: { note: 'a' } });
    await waitForFrame(view.lastFrame, (f) => f.includes('Approval 1 of 1'));
    view.stdin.write('\u001b');
    await waitForFrame(view.lastFrame, (f) => f.includes('Put off: write-note for console stays pending'));
    await approvals.resolve(approvals.pending()[0]!.id, 'approved', { by: 'cli' });
    expect((await asked).status).toBe('approved');
    await waitForFrame(view.lastFrame, (f) => f.includes('write-note for console, put off here, is approved now (by cli).') && !f.includes('stays pending'));
  });
});
