import type { Key } from 'ink';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { EditForm } from '../../source/ui/forms/edit-form.js';
import { createKeyRouter, InputRouter, useKeys, type KeyHandler, type KeyLayer, type LayerKind } from '../../source/ui/input-router.js';
import { BottomLine, FullOverlays, type Overlay, type OverlayActions, type StackedOverlay } from '../../source/ui/overlay-stack.js';
import { bottomLine, renderConsole, typeText } from '../helpers/console.js';
import { keys, waitForFrame } from '../helpers/ink.js';

const noKey: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
  super: false, hyper: false, capsLock: false, numLock: false,
} as Key;
const ctrlC = { ...noKey, ctrl: true };

/** Keys that follow one another within a turn wait until the first is drawn: let those turns pass. */
const settled = async () => { for (let turn = 0; turn < 4; turn += 1) await new Promise((resolve) => setImmediate(resolve)); };

let seq = 0;
/** A layer that records the keys offered to it and takes those `takes` accepts. */
function layer(kind: LayerKind, seen: string[], takes: (input: string) => boolean, modal = false): KeyLayer {
  const handle: KeyHandler = (input) => {
    seen.push(input);
    return takes(input);
  };
  return { kind, seq: ++seq, modal: () => modal, handle };
}

describe('key router', () => {
  it('offers a key to the top layer only when it takes it, else to the next one down', async () => {
    const router = createKeyRouter();
    const seen = { global: [] as string[], pane: [] as string[], lower: [] as string[], upper: [] as string[] };
    // Added out of order: the kind ranks first (overlay, pane, global), then the newer overlay.
    router.add(layer('global', seen.global, () => true));
    router.add(layer('overlay', seen.lower, (input) => input === 'b'));
    router.add(layer('pane', seen.pane, (input) => input === 'c'));
    const remove = router.add(layer('overlay', seen.upper, (input) => input === 'a'));

    expect(router.dispatch('a', noKey)).toBe(true);
    await settled();
    expect(seen).toEqual({ global: [], pane: [], lower: [], upper: ['a'] });
    router.dispatch('b', noKey);
    await settled();
    expect(seen).toEqual({ global: [], pane: [], lower: ['b'], upper: ['a', 'b'] });
    router.dispatch('z', noKey);
    await settled();
    expect(seen).toEqual({ global: ['z'], pane: ['z'], lower: ['b', 'z'], upper: ['a', 'b', 'z'] });

    // Popped: the layer hears nothing more, and the one under it is on top again.
    remove();
    router.dispatch('a', noKey);
    await settled();
    expect(seen.upper).toEqual(['a', 'b', 'z']);
    expect(seen.lower).toEqual(['b', 'z', 'a']);
    expect(router.top()?.kind).toBe('overlay');
  });

  it('stops every key at a modal layer except Ctrl-C, so quit works from everywhere', async () => {
    const router = createKeyRouter();
    const global: string[] = [];
    const form: string[] = [];
    router.add(layer('global', global, () => true));
    router.add(layer('overlay', form, () => false, true));
    expect(router.dispatch('q', noKey)).toBe(true);
    await settled();
    expect(router.dispatch('?', noKey)).toBe(true);
    await settled();
    expect(global).toEqual([]);
    router.dispatch('c', ctrlC);
    await settled();
    expect(form).toEqual(['q', '?', 'c']);
    expect(global).toEqual(['c']);
  });

  it('tells each component whether its layer is on top, and moves keys as layers mount and unmount', async () => {
    const got: string[] = [];
    function Layer({ name, takes }: { name: string; takes: (input: string) => boolean }) {
      const { top } = useKeys((input) => {
        got.push(`${name}:${input}`);
        return takes(input);
      }, { layer: name === 'global' ? 'global' : 'overlay' });
      return <Text>{`${name}${top ? '*' : ''} `}</Text>;
    }
    function Screen() {
      const [open, setOpen] = useState<string[]>([]);
      useKeys((input) => {
        if (input === 'o') setOpen((list) => [...list, `o${list.length + 1}`]);
        if (input === 'p') setOpen((list) => list.slice(0, -1));
        return true;
      }, { layer: 'global' });
      return (
        <Box>
          {open.map((name) => <Layer key={name} name={name} takes={(input) => name === 'o1' && input === 'x'} />)}
          <Layer name="global" takes={(input) => input !== 'o' && input !== 'p'} />
        </Box>
      );
    }
    const view = render(<InputRouter><Screen /></InputRouter>);
    const press = async (input: string) => {
      view.stdin.write(input);
      await settled();
    };
    await waitForFrame(view.lastFrame, (frame) => frame.includes('global*'));
    await press('o');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('o1* global'));
    await press('o');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('o1 o2* global'));
    got.length = 0;
    // o2 does not take x: it falls to o1, which does; the global layer never hears it.
    await press('x');
    expect(got).toEqual(['o2:x', 'o1:x']);
    got.length = 0;
    await press('y');
    expect(got).toEqual(['o2:y', 'o1:y', 'global:y']);
    // p pops o2: it hears no key after that, and o1 is on top again.
    await press('p');
    await waitForFrame(view.lastFrame, (frame) => frame.includes('o1* global') && !frame.includes('o2'));
    got.length = 0;
    await press('x');
    expect(got).toEqual(['o1:x']);
    view.unmount();
  });
});

/** The overlay stack on its own: a form with help over it. */
function StackHarness({ initial, closed }: { initial: Overlay[]; closed: number[] }) {
  const [stack, setStack] = useState<StackedOverlay[]>(() => initial.map((overlay, index) => ({ ...overlay, id: index + 1 })));
  const actions: OverlayActions = {
    close: (id) => { closed.push(id); setStack((list) => list.filter((entry) => entry.id !== id)); },
    update: (id, next) => setStack((list) => list.map((entry) => (entry.id === id ? { ...next, id } : entry))),
    install: () => {}, saveForm: () => {}, editConfigFile: () => {}, submitLine: () => {}, quit: () => {}, copy: () => {}, commandHistory: [],
    secretOf: async () => '',
  };
  return (
    <>
      <FullOverlays stack={stack} context={{ width: 80, height: 20, existingNames: [], openUrl: () => false, actions, ops: { deliveries: { list: async () => [], retry: async () => ({ ok: true, detail: '' }) } } as never, failedDeliveries: 0, notices: [], runsInFlight: [] }} />
      <BottomLine stack={stack} notice="notice" quitPrompt="Quit?" actions={actions} />
    </>
  );
}

const form: EditForm = {
  title: 'Edit job nightly',
  fields: [{ key: 'prompt', label: 'prompt', kind: 'text', initial: '', required: false, hint: 'what to ask' }],
  save: async () => ({ ok: true, notice: 'saved' }),
} as unknown as EditForm;

describe('overlay stack', () => {
  it('help over a form takes the keys; closing it gives them back to the form, which kept its text', async () => {
    const closed: number[] = [];
    const view = render(<InputRouter><StackHarness initial={[{ kind: 'form', form, errors: {}, busy: false }, { kind: 'help' }]} closed={closed} /></InputRouter>);
    await waitForFrame(view.lastFrame, (frame) => frame.includes('close this help'));
    expect(view.lastFrame()).not.toContain('Edit job nightly');
    await new Promise((resolve) => setImmediate(resolve));
    view.stdin.write('x');
    // x closed the help (id 2) and was not typed into the hidden form.
    await waitForFrame(view.lastFrame, (frame) => frame.includes('Edit job nightly') && !frame.includes('close this help'));
    expect(closed).toEqual([2]);
    expect(view.lastFrame()).toMatch(/❯ prompt\s+\S?\s*$/m);
    await typeText(view.stdin, view.lastFrame, 'q?1');
    expect(view.lastFrame()).toMatch(/❯ prompt\s+q\?1/);
    view.stdin.write(keys.escape);
    await expect.poll(() => closed).toEqual([2, 1]);
    await waitForFrame(view.lastFrame, (frame) => !frame.includes('Edit job nightly'));
    view.unmount();
  });
});

const closers: Array<() => unknown> = [];
afterEach(async () => { for (const close of closers.splice(0).reverse()) await close(); });

describe('console: letters typed into a form or the command line stay text', () => {
  it('q, ? and 1 typed in an edit form neither quit, open help nor switch panes; Ctrl-C still quits', async () => {
    const view = await renderConsole({ size: { columns: 100, rows: 30 } });
    closers.push(view.close);
    const { lastFrame, stdin, quits } = view;
    await view.gateway.jobs.create({ schedule: 'every 3h', prompt: 'summarise', name: 'nightly', deliver: 'log' });
    stdin.write('3');
    await waitForFrame(lastFrame, (frame) => frame.includes('nightly'));
    stdin.write('e');
    await waitForFrame(lastFrame, (frame) => frame.includes('Edit job nightly'));
    await new Promise((resolve) => setImmediate(resolve));
    await typeText(stdin, lastFrame, 'q?1');
    const frame = lastFrame()!;
    expect(frame).toContain('q?1');
    expect(frame).toContain('Edit job nightly');
    expect(frame).not.toContain('close this help');
    expect(quits()).toBe(0);
    stdin.write('\u0003');
    await expect.poll(quits).toBe(1);
  });

  it('q and ? typed on the command line are text; Esc closes it and q quits again', async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin, quits } = view;
    stdin.write('/');
    await waitForFrame(lastFrame, (frame) => bottomLine(frame).trim() === '/');
    await typeText(stdin, lastFrame, 'q?');
    expect(bottomLine(lastFrame()!).trim()).toBe('/q?');
    expect(lastFrame()).not.toContain('close this help');
    expect(quits()).toBe(0);
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (frame) => bottomLine(frame).includes('Press ? for keys'));
    stdin.write('q');
    await expect.poll(quits).toBe(1);
  });

  it('a command typed with its Enter in one read runs (tmux send-keys, a one-line paste); line breaks inside a paste stay text', async () => {
    const view = await renderConsole();
    closers.push(view.close);
    const { lastFrame, stdin } = view;
    stdin.write('/help\r');
    await waitForFrame(lastFrame, (frame) => frame.includes('close this help') && !bottomLine(frame).includes('/help'));
    stdin.write(keys.escape);
    await waitForFrame(lastFrame, (frame) => !frame.includes('close this help'));
    stdin.write('/');
    await waitForFrame(lastFrame, (frame) => bottomLine(frame).trim() === '/');
    stdin.write('run a\nb');
    await waitForFrame(lastFrame, (frame) => bottomLine(frame).trim() === '/run a b');
  });
});
