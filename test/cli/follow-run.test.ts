import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { followRun } from '../../source/cli/follow-run.js';
import type { RunEvent } from '../../source/agent/types.js';
import type { OperatorSession } from '../../source/operations/connect.js';
import type { ApprovalRecord } from '../../source/store/approvals.js';
import { screenOf } from '../helpers/screen.js';

const request: ApprovalRecord = {
  id: 'a1b2c3d4-0000', origin: 'cli', tool: 'terminal', server: null, argsPreview: 'reboot', annotations: null, reason: null, form: null,
  status: 'pending', decisionReason: null, decidedBy: null, values: null, createdAtMs: 0, expiresAtMs: 60_000, decidedAtMs: null,
};

afterEach(() => { vi.restoreAllMocks(); });

/** A local session whose gateway events the test emits, with `approvals.decide` and `answer` recorded. */
function fakeSession() {
  const events = new EventEmitter();
  const decide = vi.fn(async () => ({}));
  const answer = vi.fn(async () => ({}));
  const session = { where: 'local', operations: { approvals: { decide, answer } }, local: { gateway: async () => ({ events }) } } as unknown as OperatorSession;
  return { events, decide, answer, session };
}

/** What followRun wrote on stderr, as one text. */
function stderr(): () => string {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; });
  return () => written.join('');
}

/** A form from server fx (elicitation), as the approval queue records it. */
const form: ApprovalRecord = {
  ...request, id: 'f0f0f0f0-1111', origin: 'mcp:fx', tool: 'elicitation', server: 'fx', argsPreview: '{"message": "Your details?"}', reason: 'server fx asks for input',
  form: { message: 'Your details?', schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 1 } }, required: ['name'] } },
};

const progressed = (event: RunEvent, runId = 'r1') => ({ runId, origin: 'cli', event });
const call = { id: 'c1', name: 'mcp__fx__ask', args: {}, source: 'fx' };
const finished = { ...call, result: 'done', isError: false, startedAtMs: 0, finishedAtMs: 5 };

/** A run at a terminal following run r1, which has a call to fx in flight and fx's form waiting. */
async function formAtTerminal() {
  const written = stderr();
  const { events, answer, session } = fakeSession();
  const input = new PassThrough();
  const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, true, input);
  events.emit('run.progressed', progressed({ kind: 'tool.called', call }));
  events.emit('approval.requested', form);
  return { written, events, answer, input, stop };
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

describe('followRun: several requests at once at a terminal', () => {
  const second: ApprovalRecord = { ...request, id: 'b2b2b2b2-0000', argsPreview: 'shutdown' };
  const third: ApprovalRecord = { ...request, id: 'c3c3c3c3-0000', argsPreview: 'halt' };

  /** A run at a terminal with `requests` asked for at once, once the first question is on screen. */
  async function askedTogether(...requests: ApprovalRecord[]) {
    const written = stderr();
    const { events, decide, session } = fakeSession();
    const input = new PassThrough();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, true, input);
    for (const each of requests) events.emit('approval.requested', each);
    await vi.waitFor(() => expect(written()).toContain('approve? [y/N] '));
    return { written, events, decide, input, stop };
  }

  it('asks them one after the other (one reader of the keys): answers pasted at once decide them in order', async () => {
    const { written, decide, input, stop } = await askedTogether(request, second);
    expect(written()).not.toContain('shutdown'); // the second waits for the first
    expect(input.listenerCount('data')).toBe(1);
    input.write('y\nn\n');
    await vi.waitFor(() => expect(decide).toHaveBeenCalledTimes(2));
    expect(decide.mock.calls).toEqual([[{ id: request.id, decision: 'approve', by: 'cli' }], [{ id: second.id, decision: 'deny', by: 'cli' }]]);
    expect(written().indexOf('reboot')).toBeLessThan(written().indexOf('shutdown'));
    await vi.waitFor(() => expect(input.listenerCount('data')).toBe(0)); // nothing left to ask: the terminal is not read
    await stop();
  });

  it('a waiting request decided elsewhere is not asked; the next one is', async () => {
    const { written, events, decide, input, stop } = await askedTogether(request, second, third);
    events.emit('approval.resolved', { ...second, status: 'denied', decidedBy: 'console' });
    input.write('y\n');
    await vi.waitFor(() => expect(written()).toContain('halt'));
    input.write('y\n');
    await vi.waitFor(() => expect(decide).toHaveBeenCalledTimes(2));
    expect(decide.mock.calls).toEqual([[{ id: request.id, decision: 'approve', by: 'cli' }], [{ id: third.id, decision: 'approve', by: 'cli' }]]);
    expect(written()).not.toContain('shutdown');
    await stop();
  });
});

describe('followRun: the tool lines', () => {
  it('a call the model could not make (never started) shows its > line before the < line that says it was not run', async () => {
    const written = stderr();
    const { events, session } = fakeSession();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, false);
    const rejected = { id: 'c9', name: 'nosuch', args: { x: 1 }, result: "Model tried to call unavailable tool 'nosuch'. Available tools: terminal.", isError: true, startedAtMs: 7, finishedAtMs: 7 };
    events.emit('run.progressed', progressed({ kind: 'tool.finished', call: rejected }));
    events.emit('run.progressed', progressed({ kind: 'tool.called', call: { id: 'c1', name: 'terminal', args: { command: 'true' }, source: 'builtin' } }));
    events.emit('run.progressed', progressed({ kind: 'tool.finished', call: { id: 'c1', name: 'terminal', args: { command: 'true' }, result: 'exit code 0', isError: false, startedAtMs: 0, finishedAtMs: 3 } }));
    await stop();
    expect(written()).toBe([
      '  > nosuch {"x":1}',
      "  < nosuch not run: Model tried to call unavailable tool 'nosuch'. Available tools: terminal.",
      '  > terminal {"command":"true"}',
      '  < terminal ok (3 ms): exit code 0',
      '',
    ].join('\n'));
  });
});

describe('followRun: forms (elicitation) of the servers the run is calling', () => {
  it('not at a terminal: one line saying who asks for what and the command that answers it; a form of a server the run is not calling is not shown', async () => {
    const written = stderr();
    const { events, session } = fakeSession();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, false);
    events.emit('approval.requested', form); // no call of fx in flight yet: another run's
    events.emit('run.progressed', progressed({ kind: 'tool.called', call }));
    events.emit('run.progressed', progressed({ kind: 'tool.called', call: { ...call, id: 'c2', source: 'other' } }, 'r2'));
    events.emit('approval.requested', { ...form, id: 'f1f1f1f1-2222', server: 'other', origin: 'mcp:other' });
    events.emit('approval.requested', { ...form, id: 'f2f2f2f2-3333' });
    await new Promise((resolve) => setImmediate(resolve));
    await stop();
    expect(written()).toBe('  > mcp__fx__ask {}\n  ? fx asks for: Your details?; answer with switchboard approvals answer f2f2f2f2 --value name=... (or --decline)\n');
  });

  it('declined by approvals.headless "deny": says so in a form\'s words', async () => {
    const written = stderr();
    const { events, session } = fakeSession();
    const stop = await followRun(session, { runId: 'r1', origin: 'cli' }, false);
    events.emit('run.progressed', progressed({ kind: 'tool.called', call }));
    events.emit('approval.requested', form);
    events.emit('approval.resolved', { ...form, status: 'denied', decidedBy: 'policy' });
    await new Promise((resolve) => setImmediate(resolve));
    await stop();
    expect(written()).toContain('  ! fx asks for: Your details?; declined: approvals.headless is "deny" (set it to "wait" to answer from another terminal or a console)\n');
    expect(written()).not.toContain('answer with');
  });

  it('at a terminal: answer? then each field; a value that does not fit is asked again; the answer goes through operations', async () => {
    const { written, answer, input, stop } = await formAtTerminal();
    const typed = async (prompt: string, text: string) => {
      await vi.waitFor(() => expect(written().endsWith(prompt)).toBe(true));
      input.write(`${text}\n`);
    };
    await typed('answer (2 fields, 1 required)? [y/N] ', 'y');
    await typed('name (text, required): ', '');
    await typed('      name is required\n    name (text, required): ', 'Ada');
    await typed('age (a whole number of at least 1): ', 'zero');
    await typed('      age must be a number (got "zero")\n    age (a whole number of at least 1): ', '3');
    await vi.waitFor(() => expect(answer).toHaveBeenCalledWith({ id: form.id, values: { name: 'Ada', age: 3 }, by: 'cli' }));
    expect(written()).toContain('  ? fx asks for: Your details?\n');
    await stop();
  });

  it('at a terminal: Enter declines; an optional field left empty is left out', async () => {
    const { written, events, answer, input, stop } = await formAtTerminal();
    await new Promise((resolve) => setImmediate(resolve));
    input.write('\n');
    await vi.waitFor(() => expect(answer).toHaveBeenCalledWith({ id: form.id, decline: true, by: 'cli' }));
    events.emit('approval.requested', { ...form, id: 'f3f3f3f3-4444' });
    for (const [prompt, text] of [['[y/N] ', 'yes'], ['name (text, required): ', 'Ada'], ['age (a whole number of at least 1): ', '']]) {
      await vi.waitFor(() => expect(written().endsWith(prompt!)).toBe(true));
      input.write(`${text}\n`);
    }
    await vi.waitFor(() => expect(answer).toHaveBeenCalledWith({ id: 'f3f3f3f3-4444', values: { name: 'Ada' }, by: 'cli' }));
    await stop();
  });

  it('at a terminal: a form answered elsewhere ends its questions with a note', async () => {
    const { written, events, answer, input, stop } = await formAtTerminal();
    await new Promise((resolve) => setImmediate(resolve));
    input.write('y\n');
    await vi.waitFor(() => expect(written()).toContain('name (text, required): '));
    events.emit('approval.resolved', { ...form, status: 'approved', decidedBy: 'console' });
    await vi.waitFor(() => expect(written()).toMatch(/\(answered elsewhere\)\n$/));
    input.write('Ada\n');
    await new Promise((resolve) => setImmediate(resolve));
    events.emit('run.progressed', progressed({ kind: 'tool.finished', call: finished }));
    await stop();
    expect(answer).not.toHaveBeenCalled();
  });

  it('several answer lines pasted at once answer the next questions in order', async () => {
    const { written, answer, input, stop } = await formAtTerminal();
    await vi.waitFor(() => expect(written()).toContain('[y/N] '));
    input.write('y\n\nAda\n3\n');
    await vi.waitFor(() => expect(answer).toHaveBeenCalledWith({ id: form.id, values: { name: 'Ada', age: 3 }, by: 'cli' }));
    expect(written()).toContain('    name (text, required): \n      name is required\n    name (text, required): Ada\n    age (a whole number of at least 1): 3\n');
    await stop();
  });
});

describe('followRun at a terminal (readline drawing the prompts)', () => {
  const wasTTY = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  afterEach(() => {
    if (wasTTY) Object.defineProperty(process.stderr, 'isTTY', wasTTY);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  });

  it('a line printed while a question is open goes above it, the prompt and what was typed drawn again below; pasted lines answer in order', async () => {
    // readline draws the prompts itself when its output is a terminal.
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    const { written, events, answer, input, stop } = await formAtTerminal();
    await vi.waitFor(() => expect(written()).toContain('[y/N] '));
    input.write('y\n');
    await vi.waitFor(() => expect(written()).toMatch(/name \(text, required\): \S*$/));
    input.write('Ad');
    await vi.waitFor(() => expect(written()).toMatch(/Ad$/));
    events.emit('run.progressed', progressed({ kind: 'tool.called', call: { id: 'c2', name: 'terminal', args: { command: 'true' }, source: 'builtin' } }));
    expect(screenOf(written()).slice(-3)).toEqual(['    answer (2 fields, 1 required)? [y/N] y', '  > terminal {"command":"true"}', '    name (text, required): Ad']);
    input.write('a\n3\n');
    await vi.waitFor(() => expect(answer).toHaveBeenCalledWith({ id: form.id, values: { name: 'Ada', age: 3 }, by: 'cli' }));
    expect(screenOf(written()).slice(-4)).toEqual(['  > terminal {"command":"true"}', '    name (text, required): Ada', '    age (a whole number of at least 1): 3', '']);
    await stop();
  });
});
