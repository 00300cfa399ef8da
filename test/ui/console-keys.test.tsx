import { stripVTControlCharacters } from 'node:util';
import type { Key } from 'ink';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { editLine, LineInput } from '../../source/ui/components/LineInput.js';
import { ListView } from '../../source/ui/components/ListView.js';
import { InputRouter, useKeys } from '../../source/ui/input-router.js';
import { BottomLine, type OverlayActions } from '../../source/ui/overlay-stack.js';
import { applyNoColorFlag, theme, wantsNoColor } from '../../source/ui/theme.js';
import { waitForFrame } from '../helpers/ink.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Ink draws before its effects attach input: a few ticks before the first key. */
const settle = async () => { for (let count = 0; count < 3; count += 1) await tick(); };
const plain = (frame: string | undefined) => stripVTControlCharacters(frame ?? '');
const noKey = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false, return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false, capsLock: false, numLock: false } as Key;
const ctrl = (letter: string) => String.fromCharCode(letter.charCodeAt(0) - 96);

describe('keys arriving in one chunk', () => {
  it('jjj written at once moves a list selection three rows', async () => {
    const rows = Array.from({ length: 6 }, (_unused, index) => ({ key: `r${index}`, text: `row ${index}` }));
    const view = render(<InputRouter><ListView rows={rows} height={6} width={40} focused empty="none" details={(row) => <Text>{`details of ${row.text}`}</Text>} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('row 5'));
    await settle();
    view.stdin.write('jjj');
    view.stdin.write('\r');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('details of'));
    expect(view.lastFrame()).toContain('details of row 3');
    view.unmount();
  });

  it('arrows of one read (a key held down) move a list selection once each', async () => {
    const rows = Array.from({ length: 6 }, (_unused, index) => ({ key: `r${index}`, text: `row ${index}` }));
    const view = render(<InputRouter><ListView rows={rows} height={7} width={40} focused title="Rows" empty="none" /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('Rows · 1/6'));
    await settle();
    view.stdin.write('\u001B[B\u001B[B\u001B[B\u001B[B');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('Rows · 5/6'));
    view.stdin.write('\u001B[A\u001B[A');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('Rows · 3/6'));
    view.unmount();
  });

  it('a chunk that opens a line input goes on as text into it, in order', async () => {
    function Screen() {
      const [text, setText] = useState<string | undefined>();
      const [log, setLog] = useState<string[]>([]);
      const { top } = useKeys((input) => {
        if (input === '/' && text === undefined) setText('');
        else setLog((list) => [...list, input]);
        return true;
      }, { layer: 'pane' });
      return (
        <Box flexDirection="column">
          <Text>{`keys:${log.join(',')}`}</Text>
          {text !== undefined ? <Box><Text>line:</Text><LineInput value={text} focus={top} onChange={setText} /></Box> : null}
        </Box>
      );
    }
    const view = render(<InputRouter><Screen /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('keys:'));
    await settle();
    view.stdin.write('ab/help');
    await waitForFrame(view.lastFrame, (frame) => plain(frame).includes('line:help'));
    expect(plain(view.lastFrame())).toContain('keys:a,b\n');
    view.unmount();
  });
});

describe('LineInput', () => {
  it('edits with Ctrl-W, Ctrl-A, Ctrl-E and Ctrl-U instead of typing the letters', async () => {
    const submitted: string[] = [];
    function Field() {
      const [value, setValue] = useState('');
      return <Box><Text>{'>'}</Text><LineInput value={value} onChange={setValue} onSubmit={(text) => submitted.push(text)} /><Text>{'<'}</Text></Box>;
    }
    const view = render(<InputRouter><Field /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('>'));
    await settle();
    const step = async (data: string, expected: string) => {
      view.stdin.write(data);
      await waitForFrame(view.lastFrame, (frame) => plain(frame).includes(`>${expected}<`));
    };
    // A pasted chunk is text in one go; the cursor (a space at the end) follows it.
    await step('deploy --force now', 'deploy --force now ');
    await step(ctrl('w'), 'deploy --force  ');
    await step(ctrl('a'), 'deploy --force ');
    await step('X', 'Xdeploy --force ');
    await step(ctrl('e'), 'Xdeploy --force  ');
    await step('!', 'Xdeploy --force ! ');
    await step(ctrl('u'), ' ');
    await step('ok', 'ok ');
    view.stdin.write('\r');
    await expect.poll(() => submitted).toEqual(['ok']);
    view.unmount();
  });

  it('editLine: word deletion stops at the cursor; Ctrl-K cuts to the end; Enter and Esc are not editing keys', () => {
    const at = (value: string, cursor: number) => ({ value, cursor });
    expect(editLine(at('one two  three', 9), 'w', { ...noKey, ctrl: true })).toEqual(at('one three', 4));
    expect(editLine(at('one two', 3), 'k', { ...noKey, ctrl: true })).toEqual(at('one', 3));
    expect(editLine(at('one two', 3), 'u', { ...noKey, ctrl: true })).toEqual(at(' two', 0));
    expect(editLine(at('ab', 1), '', { ...noKey, backspace: true })).toEqual(at('b', 0));
    expect(editLine(at('ab', 2), 'x\ny', noKey)).toEqual(at('abx y', 5));
    expect(editLine(at('ab', 2), '', { ...noKey, return: true })).toBeUndefined();
    expect(editLine(at('ab', 2), '', { ...noKey, escape: true })).toBeUndefined();
  });
});

describe('quit prompt', () => {
  it('a second Ctrl-C quits at once; another key stays', async () => {
    let quits = 0;
    const closed: number[] = [];
    const actions = { quit: () => { quits += 1; }, close: (id: number) => { closed.push(id); } } as unknown as OverlayActions;
    const view = render(<InputRouter><BottomLine stack={[{ kind: 'quit', id: 1 }]} notice="notice" quitPrompt="Quit? y or Ctrl-C" actions={actions} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('Quit?'));
    await settle();
    view.stdin.write('\u0003');
    await expect.poll(() => quits).toBe(1);
    view.unmount();

    const other = render(<InputRouter><BottomLine stack={[{ kind: 'quit', id: 2 }]} notice="notice" quitPrompt="Quit? y or Ctrl-C" actions={actions} /></InputRouter>);
    await waitForFrame(other.lastFrame, (frame) => frame.includes('Quit?'));
    await settle();
    other.stdin.write('n');
    await expect.poll(() => closed).toEqual([2]);
    expect(quits).toBe(1);
    other.unmount();
  });
});

describe('colour choice', () => {
  afterEach(() => { vi.unstubAllEnvs(); });

  it('NO_COLOR (not empty) takes the colours away and keeps the styles; --no-color sets it and leaves argv to Ink', () => {
    vi.stubEnv('NO_COLOR', '');
    expect(theme.warn).toBe('yellow');
    expect(wantsNoColor({ NO_COLOR: '' })).toBe(false);
    vi.stubEnv('NO_COLOR', '1');
    expect(theme.warn).toBeUndefined();
    expect(Object.values(theme)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    const env: NodeJS.ProcessEnv = {};
    const argv = ['node', 'switchboard', '--no-color', 'console'];
    applyNoColorFlag(env, argv);
    expect(env.NO_COLOR).toBe('1');
    expect(argv).toEqual(['node', 'switchboard', 'console']);
  });
});
