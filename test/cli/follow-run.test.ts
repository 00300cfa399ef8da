import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followRun } from '../../source/cli/follow-run.js';
import type { OperatorSession } from '../../source/operations/connect.js';
import type { ApprovalRecord } from '../../source/store/approvals.js';

const request: ApprovalRecord = {
  id: 'a1b2c3d4-0000', origin: 'cli', tool: 'terminal', server: null, argsPreview: 'reboot', annotations: null, reason: null, form: null,
  status: 'pending', decisionReason: null, decidedBy: null, values: null, createdAtMs: 0, expiresAtMs: 60_000, decidedAtMs: null,
};

afterEach(() => { vi.restoreAllMocks(); });

/** A local session whose gateway events the test emits, with `approvals.decide` recorded. */
function fakeSession() {
  const events = new EventEmitter();
  const decide = vi.fn(async () => ({}));
  const session = { where: 'local', operations: { approvals: { decide } }, local: { gateway: async () => ({ events }) } } as unknown as OperatorSession;
  return { events, decide, session };
}

describe('followRun at a terminal', () => {
  it('a request decided elsewhere cancels the open question: the line ends with a note, a late answer decides nothing', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; });
    const { events, decide, session } = fakeSession();
    const input = new PassThrough();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, true, input);
    events.emit('approval.requested', request);
    await vi.waitFor(() => expect(written.join('')).toContain('approve? [y/N] '));
    events.emit('approval.resolved', { ...request, status: 'approved', decidedBy: 'cli' });
    await vi.waitFor(() => expect(written.join('')).toMatch(/approve\? \[y\/N\] \r?\n {4}\(approved elsewhere\)\n$/));
    input.write('y\n');
    await new Promise((resolve) => setImmediate(resolve));
    await stop();
    expect(decide).not.toHaveBeenCalled();
    expect(input.listenerCount('data')).toBe(0);
  });

  it('an answer at the terminal decides the request', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { events, decide, session } = fakeSession();
    const input = new PassThrough();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, true, input);
    events.emit('approval.requested', request);
    await new Promise((resolve) => setImmediate(resolve));
    input.write('y\n');
    await vi.waitFor(() => expect(decide).toHaveBeenCalledWith({ id: request.id, decision: 'approve', by: 'cli' }));
    await stop();
  });
});
