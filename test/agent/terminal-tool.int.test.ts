import { isAlive } from '../helpers/process.js';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTerminalTool } from '../../source/agent/terminal-tool.js';
import type { ApprovalOutcome, ToolContext } from '../../source/agent/types.js';
import { tempHome } from '../helpers/temp-home.js';

function context(decision: ApprovalOutcome = { status: 'denied' }, asked: unknown[] = []): ToolContext {
  return { runId: 'r', origin: 'cli', signal: new AbortController().signal, requestApproval: async (input) => { asked.push(input); return decision; } };
}


describe('terminal tool', () => {
  it('runs in the workdir (created on demand) with stdin closed and returns the exit code and output', async () => {
    const workdir = path.join(tempHome().root, 'work');
    const tool = createTerminalTool({ workdir, timeoutMs: 10_000, approval: 'never' });
    const result = await tool.execute({ command: 'pwd; cat; echo err >&2; exit 3' }, context());
    expect(result).toEqual({ text: `exit code 3\n${workdir}\nerr\n`, isError: true });
  });

  it('kills the whole process group on timeout', async () => {
    const workdir = tempHome().root;
    const tool = createTerminalTool({ workdir, timeoutMs: 500, approval: 'never' });
    const started = Date.now();
    const result = await tool.execute({ command: 'sleep 30 & echo $! > child.pid; wait' }, context());
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ isError: true, text: expect.stringContaining('timed out after 1 s and was killed') });
    const childPid = Number(fs.readFileSync(path.join(workdir, 'child.pid'), 'utf8'));
    await expect.poll(() => isAlive(childPid), { timeout: 3000 }).toBe(false);
  });

  it('caps output at the limit, keeping head and tail', async () => {
    const tool = createTerminalTool({ workdir: tempHome().root, timeoutMs: 10_000, approval: 'never', maxOutputBytes: 1000 });
    const result = await tool.execute({ command: 'echo START; head -c 5000 /dev/zero | tr "\\0" x; echo; echo END' }, context());
    const text = typeof result === 'string' ? result : result.text;
    expect(text.startsWith('exit code 0\nSTART\n')).toBe(true);
    expect(text.trimEnd().endsWith('END')).toBe(true);
    expect(text).toMatch(/\[\.\.\. 4\d{3} bytes of output truncated \.\.\.\]/);
    expect(Buffer.byteLength(text)).toBeLessThan(1200);
  });

  it('asks for approval under "dangerous" only for matching commands, and under "always" for all', async () => {
    const workdir = tempHome().root;
    const asked: Array<{ reason?: string }> = [];
    const dangerous = createTerminalTool({ workdir, timeoutMs: 10_000, approval: 'dangerous' });
    expect(await dangerous.execute({ command: 'echo hi' }, context({ status: 'denied' }, asked))).toEqual({ text: 'exit code 0\nhi\n', isError: false });
    const refused = await dangerous.execute({ command: 'sudo rm -rf /tmp/x' }, context({ status: 'expired', reason: 'no decision' }, asked));
    expect(refused).toEqual({ text: 'not approved (expired: no decision); the command was not run; do not retry without being asked', isError: true });
    const denied = await dangerous.execute({ command: 'sudo true' }, context({ status: 'denied', reason: 'not on a Friday', by: 'console' }, asked));
    expect(denied).toEqual({ text: 'denied by the operator: not on a Friday; the command was not run; do not retry without being asked', isError: true });
    expect(asked[0]).toEqual({ tool: 'terminal', args: { command: 'sudo rm -rf /tmp/x' }, annotations: { destructiveHint: true }, reason: 'matches: recursive delete, privilege escalation' });
    const always = createTerminalTool({ workdir, timeoutMs: 10_000, approval: 'always' });
    expect(await always.execute({ command: 'echo approved' }, context({ status: 'approved' }))).toEqual({ text: 'exit code 0\napproved\n', isError: false });
  });

  it('rejects a missing command', async () => {
    const tool = createTerminalTool({ workdir: tempHome().root, timeoutMs: 1000, approval: 'never' });
    expect(await tool.execute({}, context())).toEqual({ text: 'terminal: "command" must be a non-empty string', isError: true });
  });
});
