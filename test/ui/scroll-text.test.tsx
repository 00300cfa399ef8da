import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ListView, type ListRow } from '../../source/ui/components/ListView.js';
import { ScrollText, wrapLines } from '../../source/ui/components/ScrollText.js';
import { InputRouter } from '../../source/ui/input-router.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const views: Array<{ unmount(): void }> = [];
afterEach(() => { for (const view of views.splice(0)) view.unmount(); });

const pageDown = '\u001B[6~';
const pageUp = '\u001B[5~';
const home = '\u001B[H';
const end = '\u001B[F';
const numbered = (count: number) => Array.from({ length: count }, (_unused, index) => ({ text: `line ${index + 1}` }));
/** The first drawn line of a frame. */
const first = (frame: string) => frame.split('\n')[0]!.trim();
const step = () => new Promise((resolve) => setImmediate(resolve));

function scrollView(lines: Array<{ text: string }>, height = 10, width = 40) {
  const view = render(<InputRouter><ScrollText lines={lines} height={height} width={width} focused hint="Esc back" /></InputRouter>);
  views.push(view);
  return view;
}

describe('ScrollText', () => {
  it('shows its position and scrolls by line, page, and to either end', async () => {
    const { lastFrame, stdin } = scrollView(numbered(100));
    expect(lastFrame()).toContain('lines 1-9/100 9% · Esc back');
    stdin.write('j');
    await waitForFrame(lastFrame, (f) => f.includes('lines 2-10/100') && first(f) === 'line 2');
    stdin.write(pageDown);
    await waitForFrame(lastFrame, (f) => f.includes('lines 10-18/100') && first(f) === 'line 10');
    stdin.write(pageUp);
    await waitForFrame(lastFrame, (f) => first(f) === 'line 2');
    stdin.write('G');
    await waitForFrame(lastFrame, (f) => f.includes('lines 92-100/100 100%') && f.includes('line 100'));
    stdin.write('j'); // past the end: stays
    await step();
    expect(lastFrame()).toContain('lines 92-100/100');
    stdin.write('g');
    await waitForFrame(lastFrame, (f) => first(f) === 'line 1');
    stdin.write(end);
    await waitForFrame(lastFrame, (f) => f.includes('line 100'));
    stdin.write(home);
    await waitForFrame(lastFrame, (f) => first(f) === 'line 1');
    // A chunk of keys (a fast `jjj`) scrolls three lines.
    stdin.write('jjj');
    await waitForFrame(lastFrame, (f) => first(f) === 'line 4');
  });

  it('wraps long lines at spaces and keeps every character', () => {
    const long = 'word '.repeat(30).trim();
    const rows = wrapLines([{ text: long }], 40);
    expect(rows.length).toBe(4);
    expect(rows.every((row) => row.text.length <= 40)).toBe(true);
    expect(rows.map((row) => row.text).join('')).toBe(long);
    // No space to break at: cut exactly.
    expect(wrapLines([{ text: 'x'.repeat(90) }], 40).map((row) => row.text.length)).toEqual([40, 40, 10]);
    // An indented line stays in its column when it wraps.
    const indented = wrapLines([{ text: `    ${'y'.repeat(50)}` }], 40).map((row) => row.text);
    expect(indented).toEqual([`    ${'y'.repeat(36)}`, `    ${'y'.repeat(14)}`]);
  });

  it('F finds a text: jumps to it, n and N go to the next and previous, Esc forgets it', async () => {
    const { lastFrame, stdin } = scrollView(numbered(100), 10, 70);
    stdin.write('F');
    await waitForFrame(lastFrame, (f) => f.includes('find:'));
    stdin.write('line 5');
    await step();
    stdin.write(keys.enter);
    // line 5, then line 50..59: eleven lines hold it.
    await waitForFrame(lastFrame, (f) => first(f) === 'line 5' && f.includes('"line 5": 11 line(s), n / N'));
    stdin.write('n');
    await waitForFrame(lastFrame, (f) => first(f) === 'line 50');
    stdin.write('N');
    await waitForFrame(lastFrame, (f) => first(f) === 'line 5');
    stdin.write('N'); // wraps around to the last match
    await waitForFrame(lastFrame, (f) => first(f) === 'line 59');
    stdin.write('F');
    await waitForFrame(lastFrame, (f) => f.includes('find:'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (f) => !f.includes('find:') && !f.includes('"line 5"'));
  });

  it('says when a find has no match', async () => {
    const { lastFrame, stdin } = scrollView(numbered(5));
    expect(lastFrame()).toContain('5 line(s)');
    stdin.write('F');
    await waitForFrame(lastFrame, (f) => f.includes('find:'));
    stdin.write('nothing');
    await step();
    stdin.write(keys.enter);
    await waitForFrame(lastFrame, (f) => f.includes('"nothing" not found'));
  });
});

describe('ListView paging', () => {
  it('moves a page with PgDn/PgUp and to the ends with G and g, showing the position', async () => {
    const rows: ListRow[] = Array.from({ length: 50 }, (_unused, index) => ({ key: `k${index}`, text: `row ${index + 1}` }));
    const view = render(<InputRouter><ListView rows={rows} height={11} width={40} focused title="Rows" empty="none" /></InputRouter>);
    views.push(view);
    const { lastFrame, stdin } = view;
    expect(lastFrame()).toContain('Rows · 1/50');
    stdin.write(pageDown);
    await waitForFrame(lastFrame, (f) => f.includes('Rows · 10/50'));
    stdin.write(pageDown);
    await waitForFrame(lastFrame, (f) => f.includes('Rows · 19/50'));
    stdin.write(pageUp);
    await waitForFrame(lastFrame, (f) => f.includes('Rows · 10/50'));
    stdin.write('G');
    await waitForFrame(lastFrame, (f) => f.includes('Rows · 50/50') && f.includes('row 50'));
    stdin.write('g');
    await waitForFrame(lastFrame, (f) => f.includes('Rows · 1/50') && f.includes('row 1\n'));
  });
});
