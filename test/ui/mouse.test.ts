import { describe, expect, it } from 'vitest';
import { createMouseFilter, createMouseReporting, isMouseInput, mouseOff, mouseOn, parseMouseReports, tapMouseReports, wantsMouse, type MouseEvent } from '../../source/ui/mouse.js';

const plain = { shift: false, meta: false, ctrl: false };

describe('SGR mouse reports', () => {
  it('reads wheel notches, presses and releases with 0-based cells', () => {
    expect(parseMouseReports('\u001B[<64;10;5M')).toEqual([{ kind: 'wheelUp', x: 9, y: 4, button: 4, ...plain }]);
    expect(parseMouseReports('\u001B[<65;1;1M')).toEqual([{ kind: 'wheelDown', x: 0, y: 0, button: 5, ...plain }]);
    expect(parseMouseReports('\u001B[<0;3;7M')).toEqual([{ kind: 'press', x: 2, y: 6, button: 0, ...plain }]);
    expect(parseMouseReports('\u001B[<0;3;7m')).toEqual([{ kind: 'release', x: 2, y: 6, button: 0, ...plain }]);
    expect(parseMouseReports('\u001B[<2;300;100M')).toEqual([{ kind: 'press', x: 299, y: 99, button: 2, ...plain }]);
    // Ctrl held: 16 added to the code.
    expect(parseMouseReports('\u001B[<16;4;4M')).toEqual([{ kind: 'press', x: 3, y: 3, button: 0, ...plain, ctrl: true }]);
  });

  it('reads several reports of one read in order, with or without their ESC (as Ink strips it)', () => {
    const kinds = (events: MouseEvent[]) => events.map((event) => `${event.kind}@${event.x},${event.y}`);
    expect(kinds(parseMouseReports('\u001B[<65;2;3M\u001B[<65;2;3M\u001B[<64;2;4M'))).toEqual(['wheelDown@1,2', 'wheelDown@1,2', 'wheelUp@1,3']);
    expect(kinds(parseMouseReports('[<64;10;5M[<0;1;1M'))).toEqual(['wheelUp@9,4', 'press@0,0']);
    expect(isMouseInput('[<64;10;5M')).toBe(true);
    expect(isMouseInput('\u001B[<64;10;5M\u001B[<65;10;5M')).toBe(true);
    expect(isMouseInput('[<64;10;5Mx')).toBe(false);
    expect(isMouseInput('[<64')).toBe(false);
  });

  it('skips malformed reports and what the console does not use', () => {
    expect(parseMouseReports('\u001B[<64;10M')).toEqual([]); // two fields
    expect(parseMouseReports('\u001B[<a;1;1M')).toEqual([]);
    expect(parseMouseReports('\u001B[<0;0;5M')).toEqual([]); // cells are 1-based
    expect(parseMouseReports('\u001B[<35;4;4M')).toEqual([]); // motion
    expect(parseMouseReports('\u001B[<66;4;4M')).toEqual([]); // horizontal wheel
    expect(parseMouseReports('\u001B[64;10;5M')).toEqual([]); // no <: not SGR
    expect(parseMouseReports('hello')).toEqual([]);
  });
});

/** What the filter makes of a sequence of reads: text as is, a mouse event as its kind in braces. */
function filtered(reads: string[]): string[] {
  const filter = createMouseFilter();
  return reads.map((read) => filter.push(read).map((piece) => ('text' in piece ? piece.text : `{${piece.mouse?.kind ?? 'ignored'}}`)).join(''));
}

describe('mouse filter in front of Ink', () => {
  it('takes reports out of the keys around them, in order', () => {
    expect(filtered(['j\u001B[<65;2;3Mk\u001B[A'])).toEqual(['j{wheelDown}k\u001B[A']);
    expect(filtered(['\u001B[<65;2;3M\u001B[<65;2;3M\u001B[<65;2;3M'])).toEqual(['{wheelDown}{wheelDown}{wheelDown}']);
    // A well-formed report the console does not use is still not text.
    expect(filtered(['a\u001B[<35;4;4Mb'])).toEqual(['a{ignored}b']);
  });

  it('keeps a report cut at the end of a read until the rest comes', () => {
    expect(filtered(['x\u001B[<64;1', '0;5My'])).toEqual(['x', '{wheelUp}y']);
    expect(filtered(['\u001B[<', '0;1;1M'])).toEqual(['', '{press}']);
  });

  it('reads a report whose ESC ended the read before, and hands Ink the rest to finish the sequence it holds', () => {
    // Ink holds "ESC [" as an unfinished sequence: the rest completes it (and Ink drops it as no key).
    expect(filtered(['a\u001B[', '<64;10;5Mb'])).toEqual(['a\u001B[', '{wheelUp}<64;10;5Mb']);
    expect(filtered(['\u001B', '[<65;10;5M'])).toEqual(['\u001B', '{wheelDown}[<65;10;5M']);
    // A lone Esc key is never held back, and what follows it is text as usual.
    expect(filtered(['\u001B', 'q'])).toEqual(['\u001B', 'q']);
  });

  it('sits in front of a stream\'s reads: Ink gets only the keys, the router the reports, and reads are restored after', () => {
    const reads = ['j\u001B[<65;2;3Mk', '\u001B[<0;5;6M'];
    const source = { read: (): unknown => reads.shift() ?? null };
    const original = source.read;
    const mice: string[] = [];
    const got: unknown[] = [];
    const restore = tapMouseReports(source, (event) => { mice.push(event.kind); got.push(`mouse:${event.kind}`); });
    for (let chunk = source.read(); chunk !== null; chunk = source.read()) got.push(chunk);
    expect(got).toEqual(['j', 'mouse:wheelDown', 'k', 'mouse:press']);
    expect(mice).toEqual(['wheelDown', 'press']);
    restore();
    expect(source.read).toBe(original);
  });
});

describe('mouse reporting on the terminal', () => {
  it('turns reporting on once, off on every way out, and off around the editor', async () => {
    const written: string[] = [];
    const mouse = createMouseReporting({ write: (data: string) => written.push(data) }, true);
    mouse.start();
    mouse.start();
    expect(written).toEqual([mouseOn]);
    const seen = await mouse.paused(async () => [...written]);
    expect(seen).toEqual([mouseOn, mouseOff]);
    expect(written).toEqual([mouseOn, mouseOff, mouseOn]);
    await expect(mouse.paused(async () => { throw new Error('editor failed'); })).rejects.toThrow('editor failed');
    expect(written.at(-1)).toBe(mouseOn);
    mouse.stop();
    mouse.stop();
    expect(written.at(-1)).toBe(mouseOff);
    expect(written.filter((data) => data === mouseOff)).toHaveLength(3);
    expect(mouseOn).toBe('\u001B[?1000h\u001B[?1006h');
  });

  it('stays off with --no-mouse, SWITCHBOARD_NO_MOUSE=1 or no terminal', () => {
    expect(wantsMouse(undefined, {}, true)).toBe(true);
    expect(wantsMouse(false, {}, true)).toBe(false);
    expect(wantsMouse(undefined, { SWITCHBOARD_NO_MOUSE: '1' }, true)).toBe(false);
    expect(wantsMouse(undefined, {}, false)).toBe(false);
    const written: string[] = [];
    const off = createMouseReporting({ write: (data: string) => written.push(data) }, false);
    off.start();
    expect(written).toEqual([]);
  });
});
