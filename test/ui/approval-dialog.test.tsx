import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../source/store/approvals.js';
import { ApprovalDialog, type ApprovalChoice } from '../../source/ui/components/ApprovalDialog.js';
import { wrapText } from '../../source/ui/format.js';
import { ElicitationDialog, type ElicitationChoice } from '../../source/ui/components/ElicitationDialog.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { renderConsole } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Ink draws before its effects attach input: a few ticks before the first key. */
const settle = async () => { for (let count = 0; count < 3; count += 1) await tick(); };

function record(args: unknown, id = 'r1'): ApprovalRecord {
  return {
    id, origin: 'webhook:deploy', tool: 'terminal', server: null, argsPreview: JSON.stringify(args, undefined, 2),
    annotations: null, reason: 'matches: recursive delete', form: null, status: 'pending', decisionReason: null, decidedBy: null,
    values: null, createdAtMs: Date.now(), expiresAtMs: Date.now() + 60_000, decidedAtMs: null,
  };
}

function dialog(request: ApprovalRecord, options: { pausedUntil?: number } = {}) {
  const choices: ApprovalChoice[] = [];
  let dismissed = 0;
  const view = render(
    <InputRouter>
      <ApprovalDialog request={request} position={1} total={1} now={Date.now()} width={60} maxArgLines={8} pausedUntil={options.pausedUntil}
        onChoice={(choice) => choices.push(choice)} onDismiss={() => { dismissed += 1; }} />
    </InputRouter>,
  );
  return { ...view, choices, dismissed: () => dismissed };
}

// A harmless head and a dangerous tail: one line far wider than the dialog.
const longCommand = `${'echo preparing the release notes for everyone && '.repeat(8)}rm -rf ~/important`;

describe('approval dialog arguments', () => {
  it('wraps a long command instead of cutting it, and refuses `a` until its tail has been shown', async () => {
    const view = dialog(record({ command: longCommand, cwd: '/srv/app', env: { A: '1', B: '2', C: '3' } }));
    const first = await waitForFrame(view.lastFrame, (frame) => frame.includes('Approval 1 of 1'));
    await settle();
    expect(first).toMatch(/lines 1-8 of \d+, ↓ for more/);
    expect(first).not.toContain('important');
    view.stdin.write('a');
    await waitForFrame(view.lastFrame, (frame) => /Not approved: lines 9-\d+ not shown yet/.test(frame));
    view.stdin.write('s');
    await tick();
    expect(view.choices).toEqual([]);

    // Scrolling down to the last line shows the tail, whole; then `a` approves.
    for (let step = 0; step < 20 && !/lines \d+-(\d+) of \1[^,]/.test(view.lastFrame() ?? ''); step += 1) {
      view.stdin.write(step % 2 === 0 ? keys.down : 'j');
      await tick();
    }
    const bottom = await waitForFrame(view.lastFrame, (frame) => /lines \d+-(\d+) of \1 \(↑ back\)/.test(frame));
    expect(bottom.replace(/[│\s]+/g, '')).toContain('rm-rf~/important');
    view.stdin.write('a');
    await expect.poll(() => view.choices).toEqual([{ decision: 'approve' }]);
    view.unmount();
  });

  it('PgDn and PgUp scroll a page; short arguments approve at once; Esc puts the request off without deciding', async () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_unused, index) => [`key${index}`, index]));
    const view = dialog(record(many));
    await waitForFrame(view.lastFrame, (frame) => frame.includes('lines 1-8 of 32, ↓ for more'));
    await settle();
    view.stdin.write('\u001B[6~');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('lines 8-15 of 32, ↓ for more'));
    view.stdin.write('\u001B[5~');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('lines 1-8 of 32, ↓ for more'));
    view.stdin.write(keys.escape);
    await expect.poll(view.dismissed).toBe(1);
    expect(view.choices).toEqual([]);
    view.unmount();

    const short = dialog(record({ command: 'ls' }));
    const frame = await waitForFrame(short.lastFrame, (text) => text.includes('"command": "ls"'));
    expect(frame).not.toContain('lines 1-');
    await settle();
    short.stdin.write('a');
    await expect.poll(() => short.choices).toEqual([{ decision: 'approve' }]);
    short.unmount();
  });

  it('ignores keys while paused, says so, and takes them when the pause ends', async () => {
    const view = dialog(record({ command: 'ls' }), { pausedUntil: Date.now() + 1500 });
    await waitForFrame(view.lastFrame, (frame) => frame.includes('keys paused'));
    await settle();
    view.stdin.write('a');
    view.stdin.write('d');
    await tick();
    expect(view.choices).toEqual([]);
    expect(view.lastFrame()).not.toContain('Reason');
    await waitForFrame(view.lastFrame, (frame) => !frame.includes('keys paused') && frame.includes('a approve once'));
    expect(view.choices).toEqual([]);
    view.stdin.write('a');
    await expect.poll(() => view.choices).toEqual([{ decision: 'approve' }]);
    view.unmount();
  });
});

describe('elicitation dialog after a decision', () => {
  it('ignores keys while paused too, then d declines', async () => {
    const choices: ElicitationChoice[] = [];
    const request = { ...record({}), tool: 'elicitation', form: { message: 'Your name?', schema: { type: 'object', properties: { name: { type: 'string' } } } } };
    const view = render(<InputRouter><ElicitationDialog request={request} position={1} total={1} now={Date.now()} width={70} height={20} pausedUntil={Date.now() + 1500} onChoice={(choice) => choices.push(choice)} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('keys paused'));
    await settle();
    view.stdin.write('d');
    await tick();
    expect(choices).toEqual([]);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('a fill in the form'));
    view.stdin.write('d');
    await expect.poll(() => choices).toEqual([{ decision: 'decline' }]);
    view.unmount();
  });
});

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('console approval queue', () => {
  it('a double tap of a approves one request: the next dialog pauses its keys; Esc puts a request off and A reopens it', async () => {
    const view = await renderConsole({ size: { columns: 100, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, gateway } = view;
    const first = gateway.approvals.request({ origin: 'console', tool: 'terminal', args: { command: 'ls first' } });
    void gateway.approvals.request({ origin: 'console', tool: 'terminal', args: { command: 'rm -rf second' } });
    await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 2') && frame.includes('ls first'));
    await settle();
    stdin.write('a');
    // The second tap lands as soon as the next request shows, as a quick double tap would.
    await waitForFrame(lastFrame, (frame) => frame.includes('rm -rf second'));
    stdin.write('a');
    expect((await first).status).toBe('approved');
    await waitForFrame(lastFrame, (frame) => frame.includes('rm -rf second') && frame.includes('keys paused'));
    await waitForFrame(lastFrame, (frame) => frame.includes('rm -rf second') && !frame.includes('keys paused'));
    // The second tap met the paused dialog: the request is still waiting.
    expect(gateway.approvals.pending().map((request) => request.argsPreview)).toEqual([expect.stringContaining('rm -rf second')]);

    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (frame) => !frame.includes('Approval 1 of 1') && frame.includes('stays pending'));
    expect(gateway.approvals.pending()).toHaveLength(1);
    stdin.write('A');
    await waitForFrame(lastFrame, (frame) => frame.includes('Approval 1 of 1') && frame.includes('rm -rf second') && frame.includes('a approve once'));
    await settle();
    stdin.write('d');
    await waitForFrame(lastFrame, (frame) => frame.includes('Reason (optional, Enter to deny):'));
    stdin.write(keys.enter);
    await expect.poll(() => gateway.approvals.pending()).toEqual([]);
  });
});

describe('wrapText', () => {
  it('wraps by terminal columns: wide characters count two, nothing is lost', () => {
    expect(wrapText('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
    expect(wrapText('日本語です', 4)).toEqual(['日本', '語で', 'す']);
    expect(wrapText('a\n"x": 1', 10)).toEqual(['a', '"x": 1']);
    expect(wrapText(longCommand, 56).join('')).toBe(longCommand);
  });
});
