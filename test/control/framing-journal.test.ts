import { describe, expect, it, vi } from 'vitest';
import { createLineSplitter } from '../../source/control/framing.js';
import { createEventJournal } from '../../source/control/journal.js';

function split(maxLineBytes: number, chunks: Buffer[]) {
  const lines: string[] = [];
  const overflow = vi.fn();
  const splitter = createLineSplitter(maxLineBytes, (line) => lines.push(line), overflow);
  for (const chunk of chunks) splitter.push(chunk);
  return { lines, overflow };
}

describe('line splitter', () => {
  it('joins lines across chunks, splits several in one chunk, drops CR and empty lines', () => {
    const { lines } = split(100, [Buffer.from('{"a":'), Buffer.from('1}\n{"b":2}\r\n\n{"c"'), Buffer.from(':3}\n')]);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a multi-byte character split between chunks whole', () => {
    const bytes = Buffer.from('"żółw 🐢"\n');
    const { lines } = split(100, [bytes.subarray(0, 2), bytes.subarray(2, 11), bytes.subarray(11)]);
    expect(lines).toEqual(['"żółw 🐢"']);
  });

  it('reports an over-long line as soon as it passes the limit, without waiting for its newline, then stops', () => {
    const { lines, overflow } = split(10, [Buffer.from('ok\n0123456'), Buffer.from('789'), Buffer.from('X'), Buffer.from('more\nok\n')]);
    expect(lines).toEqual(['ok']);
    expect(overflow).toHaveBeenCalledTimes(1);
  });

  it('accepts a line of exactly the limit', () => {
    const { lines, overflow } = split(10, [Buffer.from('0123456789\n')]);
    expect(lines).toEqual(['0123456789']);
    expect(overflow).not.toHaveBeenCalled();
  });
});

describe('event journal', () => {
  it('numbers events from 1, stamps them, and hands them to listeners in order', () => {
    let now = 1_000;
    const journal = createEventJournal({ epoch: 'e1', now: () => now++ });
    const heard: number[] = [];
    const stop = journal.listen((event) => heard.push(event.seq));
    expect(journal.seq).toBe(0);
    expect(journal.append('jobs.created', { name: 'a' })).toEqual({ seq: 1, type: 'jobs.created', data: { name: 'a' }, atMs: 1_000 });
    journal.append('jobs.removed', { name: 'a' });
    stop();
    journal.append('jobs.created', { name: 'b' });
    expect(heard).toEqual([1, 2]);
    expect(journal.seq).toBe(3);
    expect(journal.epoch).toBe('e1');
  });

  it('replays what follows a seq while the ring still holds it', () => {
    const journal = createEventJournal({ capacity: 3 });
    for (let i = 1; i <= 5; i += 1) journal.append('n', i);
    expect(journal.since(5)).toEqual([]);
    expect(journal.since(2)!.map((event) => event.data)).toEqual([3, 4, 5]);
    expect(journal.since(1)).toBeUndefined(); // event 2 has left the ring
    expect(journal.since(6)).toBeUndefined(); // from the future: another start's numbering
    expect(journal.since(-1)).toBeUndefined();
    expect(journal.since(2.5)).toBeUndefined();
  });

  it('never resumes across epochs', () => {
    const journal = createEventJournal({ epoch: 'now' });
    journal.append('n', 1);
    expect(journal.since(0, 'now')).toHaveLength(1);
    expect(journal.since(0, 'before')).toBeUndefined();
    expect(createEventJournal().epoch).not.toBe(createEventJournal().epoch);
  });

  it('keeps its memory bounded by the capacity', () => {
    const journal = createEventJournal({ capacity: 10 });
    for (let i = 1; i <= 1_000; i += 1) journal.append('n', i);
    expect(journal.since(990)!.map((event) => event.data)).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    expect(journal.since(989)).toBeUndefined();
  });

  it('keeps its memory bounded by its text too: big events let the oldest go first, never the newest', () => {
    const journal = createEventJournal({ capacity: 1_000, maxBytes: 10_000 });
    const big = (n: number) => ({ runId: `r${n}`, output: 'x'.repeat(3_000) }); // about 3.1 KB each
    for (let n = 1; n <= 5; n += 1) journal.append('run.finished', big(n));
    expect(journal.since(2)!.map((event) => (event.data as { runId: string }).runId)).toEqual(['r3', 'r4', 'r5']);
    expect(journal.since(1)).toBeUndefined(); // let go: a client resuming from there gets a snapshot
    for (let n = 6; n <= 600; n += 1) journal.append('n', n); // small ones: the big ones go as the budget fills
    expect(journal.since(5)).toBeUndefined();
    expect(journal.since(520)!.map((event) => event.data)).toEqual(Array.from({ length: 80 }, (_, i) => 521 + i));
    journal.append('run.finished', { output: 'y'.repeat(50_000) }); // over the budget by itself: kept, alone
    expect(journal.since(600)!.map((event) => event.seq)).toEqual([601]);
    expect(journal.since(599)).toBeUndefined();
    journal.append('n', 602); // the next one lets it go: it is the oldest, and the budget is over
    expect(journal.since(600)).toBeUndefined();
    expect(journal.since(601)!.map((event) => event.data)).toEqual([602]);
  });

  it('counts what the capacity already let go once, never twice', () => {
    const journal = createEventJournal({ capacity: 4, maxBytes: 4 * (64 + 1_000) });
    // Each fills a quarter of the budget; the ring holds four: the budget is never what lets one go.
    for (let n = 1; n <= 40; n += 1) journal.append('n', 'z'.repeat(1_000));
    expect(journal.since(36)!.map((event) => event.seq)).toEqual([37, 38, 39, 40]);
  });
});

describe('event journal that keeps events once listened to', () => {
  it('numbers every event but keeps none before the first listener; resumes from there on', () => {
    const journal = createEventJournal({ capacity: 10, retain: 'once-listened' });
    journal.append('n', 1);
    journal.append('n', 2);
    expect(journal.seq).toBe(2);
    expect(journal.since(0)).toBeUndefined(); // nothing was kept: a snapshot instead
    expect(journal.since(2)).toEqual([]);
    const stop = journal.listen(() => {});
    journal.append('n', 3);
    stop();
    journal.append('n', 4);
    expect(journal.since(2)!.map((event) => event.data)).toEqual([3, 4]); // kept after the listener left, for its resume
    expect(journal.since(1)).toBeUndefined();
  });
});
