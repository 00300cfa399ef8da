import { Box, Text, type DOMElement } from 'ink';
import { render } from 'ink-testing-library';
import { useRef, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { useClickRegion, screenRect, type ClickPoint } from '../../source/ui/hooks/useClickRegion.js';
import { useSelection } from '../../source/ui/hooks/useSelection.js';
import { createKeyRouter, InputRouter, useKeys } from '../../source/ui/input-router.js';
import { keys, waitForFrame } from '../helpers/ink.js';

/** An SGR report as a terminal sends it: code, 1-based column and row, press (M) or release (m). */
const report = (code: number, column: number, row: number, final = 'M') => `\u001B[<${code};${column};${row}${final}`;
const wheelDown = (column = 1, row = 1) => report(65, column, row);
const wheelUp = (column = 1, row = 1) => report(64, column, row);
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A list on the pane layer (the overlays' selection hook), and an optional line input above it. */
function ListWithInput({ typed }: { typed: string[] }) {
  const { index, move } = useSelection(10, 10);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState('');
  useKeys((input, key) => {
    if (input !== '/') return move(input, key);
    setEditing(true);
    return true;
  }, { layer: 'pane' });
  // A line input as the console's: typed text goes in, ↑↓ pass down to the layers under it.
  useKeys((input, key) => {
    if (key.upArrow || key.downArrow) return false;
    typed.push(input);
    setText((before) => before + input);
    return true;
  }, { layer: 'text', active: editing });
  return <Text>{`row ${index}${editing ? ` text:${text}|` : ''}`}</Text>;
}

describe('mouse through the input router', () => {
  it('moves a list like ↓ per wheel notch, several notches of one read included', async () => {
    const view = render(<InputRouter><ListWithInput typed={[]} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 0'));
    view.stdin.write(wheelDown());
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 1'));
    view.stdin.write(keys.down);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 2'));
    // A fast wheel: three notches in one read move three rows (each meets the row the one before left).
    view.stdin.write(wheelDown() + wheelDown() + wheelDown());
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 5'));
    view.stdin.write(wheelUp() + wheelUp());
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 3'));
    view.unmount();
  });

  it('never hands a report to a line input as text, even between typed keys or cut in two reads', async () => {
    const typed: string[] = [];
    const view = render(<InputRouter><ListWithInput typed={typed} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 0'));
    view.stdin.write('/');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('text:|'));
    view.stdin.write('a');
    await tick();
    view.stdin.write(`${wheelDown()}b${report(0, 3, 1)}${report(0, 3, 1, 'm')}`);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('text:ab|'));
    // The wheel went down as ↓: the line input passed it to the list.
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 1'));
    const cut = wheelDown();
    view.stdin.write(`c${cut.slice(0, 6)}`);
    await tick();
    view.stdin.write(`${cut.slice(6)}d`);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('text:abcd|') && frame.includes('row 2'));
    expect(typed.join('')).toBe('abcd');
    expect(view.lastFrame()).not.toContain('[<');
    view.unmount();
  });
});

describe('mouse reports handed to the router as keys', () => {
  it('reads the ESC-stripped form (as Ink\'s useInput would give it) as mouse, never as text', () => {
    const router = createKeyRouter();
    const text: string[] = [];
    const pane: string[] = [];
    router.add({ kind: 'pane', seq: router.nextSeq(), modal: () => false, handle: (input, key) => { pane.push(key.downArrow ? '↓' : input); return true; } });
    router.add({ kind: 'text', seq: router.nextSeq(), modal: () => false, handle: (input, key) => { if (key.downArrow) return false; text.push(input); return true; } });
    const key = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false };
    expect(router.dispatch('[<65;10;5M', key)).toBe(true);
    expect(router.dispatch('[<0;10;5M', key)).toBe(true);
    expect(text).toEqual([]);
    expect(pane).toEqual(['↓']);
  });
});

/** A box that takes clicks and writes down which row and column of it was clicked. */
function Region({ name, clicks, height, width, active = true }: { name: string; clicks: string[]; height: number; width?: number; active?: boolean }) {
  const ref = useRef<DOMElement>(null);
  useClickRegion(ref, ({ column, row }: ClickPoint) => { clicks.push(`${name}:${column},${row}`); }, { active });
  return <Box ref={ref} height={height} {...(width ? { width } : {})} flexDirection="column"><Text>{name}</Text></Box>;
}

function Regions({ clicks, overlay, active = true }: { clicks: string[]; overlay: boolean; active?: boolean }) {
  return (
    <Box flexDirection="column" width={40}>
      <Text>header</Text>
      <Region name="top" clicks={clicks} height={3} active={active} />
      <Box paddingLeft={4}><Region name="bottom" clicks={clicks} height={2} width={10} /></Box>
      {overlay ? <Box position="absolute" marginTop={2} marginLeft={2} width={20}><Region name="overlay" clicks={clicks} height={2} /></Box> : null}
    </Box>
  );
}

describe('click regions', () => {
  it('gives a left press to the region under it, with the row and column inside the region', async () => {
    const clicks: string[] = [];
    const view = render(<InputRouter><Regions clicks={clicks} overlay={false} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('bottom'));
    // Screen row 3 (1-based) is the second line of `top` (row 0 is the header).
    view.stdin.write(report(0, 6, 3));
    // Column 7 on row 5: inside `bottom`, which starts at column 4 (0-based) of row 4.
    view.stdin.write(report(0, 7, 5));
    // Nothing: the header line, the padding left of `bottom`, a right button, a release, past the last row.
    view.stdin.write(report(0, 1, 1) + report(0, 2, 5) + report(2, 6, 3) + report(0, 6, 3, 'm') + report(0, 1, 9));
    await tick();
    expect(clicks).toEqual(['top:5,1', 'bottom:2,0']);
    view.unmount();
  });

  it('gives the click to the region registered last where regions overlap, and none to an inactive one', async () => {
    const clicks: string[] = [];
    const view = render(<InputRouter><Regions clicks={clicks} overlay={false} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('bottom'));
    view.rerender(<InputRouter><Regions clicks={clicks} overlay /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('overlay'));
    // The overlay covers rows 2-3 (0-based), columns 2-21: over `top` and `bottom`.
    view.stdin.write(report(0, 4, 4)); // row 3, column 3
    view.stdin.write(report(0, 1, 4)); // column 0: left of the overlay, still `top`
    await tick();
    expect(clicks).toEqual(['overlay:1,1', 'top:0,2']);
    // Closed: the same cell is `top` again; made inactive: `top` hears nothing.
    view.rerender(<InputRouter><Regions clicks={clicks} overlay={false} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => !frame.includes('overlay'));
    view.stdin.write(report(0, 4, 4));
    view.rerender(<InputRouter><Regions clicks={clicks} overlay={false} active={false} /></InputRouter>);
    await tick();
    view.stdin.write(report(0, 4, 4));
    await tick();
    expect(clicks).toEqual(['overlay:1,1', 'top:0,2', 'top:3,2']);
    view.unmount();
  });

  it('places a box as Ink draws it: offsets added up, cut to an ancestor that hides its overflow', async () => {
    let inner: DOMElement | null = null;
    let hidden: DOMElement | null = null;
    const view = render(
      <Box flexDirection="column">
        <Text>one</Text>
        <Box ref={(node) => { hidden = node; }} height={4} marginLeft={5} overflow="hidden" borderStyle="single" flexDirection="column">
          <Box flexShrink={0}><Text>two</Text></Box>
          <Box ref={(node) => { inner = node; }} height={4} flexShrink={0}><Text>three</Text></Box>
        </Box>
      </Box>,
    );
    await waitForFrame(view.lastFrame, (frame) => frame.includes('two'));
    // The bordered box: row 1, column 5, 4 rows; its inside is rows 2 and 3, between the borders.
    expect(screenRect(hidden!)).toMatchObject({ x: 5, y: 1, height: 4, visible: { x: 5, y: 1, height: 4 } });
    // `inner` starts on row 3 (one, border, two), column 6, 4 rows tall, but only row 3 shows.
    expect(screenRect(inner!)).toMatchObject({ x: 6, y: 3, height: 4, visible: { x: 6, y: 3, height: 1 } });
    view.unmount();
  });
});
