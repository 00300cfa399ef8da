import { useInput, useStdin, type Key } from 'ink';
import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { isMouseInput, parseMouseReports, tapMouseReports, type MouseEvent } from './mouse.js';

/** What a layer says about a key: `true` takes it; anything else offers it to the layer below. */
export type KeyHandler = (input: string, key: Key) => boolean | void;

/**
 * Where a layer sits: overlays (dialogs, forms, prompts) over the focused pane over the global keymap.
 * A `text` layer is a focused line input: it has focus only while the layer that holds it is on
 * top, so it sits above everything and passes down the keys that are not editing (Esc, Tab, ↑↓).
 */
export type LayerKind = 'text' | 'overlay' | 'pane' | 'global';

const rank: Record<LayerKind, number> = { text: -1, overlay: 0, pane: 1, global: 2 };

export interface KeyLayer {
  kind: LayerKind;
  /** Order of arrival: within a kind, the newer layer is on top. */
  seq: number;
  /** A modal layer owns the keyboard: keys it does not take stop there, except Ctrl-C (quit works from everywhere). */
  modal(): boolean;
  handle: KeyHandler;
}

export type KeyRouter = ReturnType<typeof createKeyRouter>;

/** Where a click landed, relative to the top left cell of the region clicked. */
export interface ClickPoint {
  column: number;
  row: number;
}

/** A part of the screen that takes left clicks (see `useClickRegion`). */
export interface ClickRegion {
  /** Order of arrival: where regions overlap, the newer one (an overlay) gets the click. */
  seq: number;
  /** The point relative to the region when the screen cell (x, y) is inside it, else undefined. */
  hit(x: number, y: number): ClickPoint | undefined;
  onClick(at: ClickPoint): void;
}

const isCtrlC = (input: string, key: Key) => key.ctrl && input === 'c';

const plainKey: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
  super: false, hyper: false, capsLock: false, numLock: false,
};

/** The key one character of a typed chunk stands for (Ink parses only whole chunks). */
export function keyOfChar(char: string): [string, Key] {
  if (char === '\r' || char === '\n') return ['', { ...plainKey, return: true }];
  if (char === '\t') return ['', { ...plainKey, tab: true }];
  if (char === '\u007F' || char === '\b') return ['', { ...plainKey, backspace: true }];
  const code = char.codePointAt(0)!;
  // Control bytes: Ctrl-A is 1 ... Ctrl-Z is 26.
  if (code >= 1 && code <= 26) return [String.fromCodePoint(code + 96), { ...plainKey, ctrl: true }];
  return [char, { ...plainKey, shift: /^[A-Z]$/.test(char) }];
}

/** A character of a chunk that is a key, not text, even for a line input: Tab, Backspace, Ctrl-letters (line breaks aside). */
const isKeyChar = (char: string) => {
  const code = char.codePointAt(0)!;
  return (code >= 1 && code <= 26 && code !== 10 && code !== 13) || code === 127;
};

/**
 * Whether Ink handed over several keys as one `input` (fast typing, a paste): plain characters
 * with no key flag. Escape sequences (arrows, PgUp) arrive one per event already.
 */
const isChunk = (input: string, key: Key) =>
  [...input].length > 1 && !key.ctrl && !key.meta && !key.escape && !key.upArrow && !key.downArrow && !key.leftArrow && !key.rightArrow && !key.pageUp && !key.pageDown && !key.return && !key.tab;

/**
 * Runs `next` once React has drawn what the key before it changed. A state update made outside
 * Ink's input handler (a key of a chunk, a wheel notch) renders in a scheduler task that React
 * queues with setImmediate from a microtask, so after an immediate queued now: wait two turns.
 */
const afterRender = (next: () => void) => { setImmediate(() => setImmediate(next)); };

/**
 * The console's one input router: every key is offered to the layers top first (the newest overlay,
 * then the focused pane, then the global keymap) until one takes it or a modal layer stops it.
 */
export function createKeyRouter() {
  const layers = new Set<KeyLayer>();
  const regions = new Set<ClickRegion>();
  const listeners = new Set<() => void>();
  let seq = 0;
  const ordered = () => [...layers].sort((a, b) => rank[a.kind] - rank[b.kind] || b.seq - a.seq);
  const changed = () => { for (const listener of [...listeners]) listener(); };
  /**
   * Keys of a chunk not handed out yet (a character, or a key that arrived behind them): one per
   * turn of the event loop, so each key meets the state the one before it left.
   */
  const pending: Array<{ input: string; key: Key; char: boolean }> = [];
  const offer = (input: string, key: Key): boolean => {
    for (const layer of ordered()) {
      if (layer.handle(input, key) === true) return true;
      if (layer.modal() && !isCtrlC(input, key)) return true;
    }
    return false;
  };
  const textOnTop = () => ordered()[0]?.kind === 'text';
  /**
   * Text for the line input on top. A line break that ends it is Enter (`/cron list⏎` typed fast,
   * sent by tmux or pasted as one line): the text goes in, then the line is submitted. Line breaks
   * inside it stay in the text (the input keeps them as spaces), so a paste of several lines never
   * turns its later lines into keys for the panes.
   */
  const typeInto = (text: string): boolean => {
    const line = text.replace(/(\r\n|\r|\n)$/, '');
    if (line === text) return offer(text, plainKey);
    if (line !== '') offer(line, plainKey);
    return offer(...keyOfChar('\r'));
  };
  /** A queued key was just offered and React has not drawn its result yet: keys that come now wait. */
  let settling = false;
  const busy = () => settling || pending.length > 0;
  const drain = () => {
    settling = false;
    const first = pending.shift();
    if (!first) return;
    const typed = first.char && !isKeyChar(first.input) && textOnTop();
    if (typed) {
      // A focused line input takes the chunk's characters as text in one go, up to a key among them
      // (a Tab moves to the next field, which takes what follows once drawn).
      let text = first.input;
      while (pending[0]?.char && !isKeyChar(pending[0].input)) text += pending.shift()!.input;
      typeInto(text);
    } else if (first.char) {
      offer(...keyOfChar(first.input));
    } else {
      offer(first.input, first.key);
    }
    // Text went into a line input (which reads its own latest state): the next key need not wait.
    if (typed) return drain();
    settling = true;
    afterRender(drain);
  };
  /** Queues a key behind the ones waiting: keys of one read meet the state the key before left. */
  const queue = (input: string, key: Key) => {
    const waiting = busy();
    pending.push({ input, key, char: false });
    if (!waiting) drain();
  };
  const click = (x: number, y: number): boolean => {
    for (const region of [...regions].sort((a, b) => b.seq - a.seq)) {
      const at = region.hit(x, y);
      if (!at) continue;
      region.onClick(at);
      return true;
    }
    return false;
  };
  /**
   * A mouse event: a wheel notch is an ↑ or ↓ key press down the layers (lists and dialogs scroll
   * as with the arrows); a left press goes to the topmost click region under it. Says whether
   * anything took it.
   */
  const mouse = (event: MouseEvent): boolean => {
    if (event.kind === 'wheelUp' || event.kind === 'wheelDown') {
      queue('', { ...plainKey, upArrow: event.kind === 'wheelUp', downArrow: event.kind === 'wheelDown' });
      return true;
    }
    return event.kind === 'press' && event.button === 0 && click(event.x, event.y);
  };
  return {
    nextSeq: () => ++seq,
    mouse,
    /** Adds a click region; the returned function takes it away again. */
    addRegion(region: ClickRegion): () => void {
      regions.add(region);
      return () => { regions.delete(region); };
    },
    /** Adds a layer; the returned function takes it away again. */
    add(layer: KeyLayer): () => void {
      layers.add(layer);
      changed();
      return () => { if (layers.delete(layer)) changed(); };
    },
    /** The layer that is offered keys first (line inputs aside: they belong to the layer under them). */
    top: (): KeyLayer | undefined => ordered().find((layer) => layer.kind !== 'text'),
    /** Called whenever a layer comes or goes. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    /**
     * Offers a key down the layers; says whether a layer took it. A chunk of several characters is
     * split into keys (`jjj` moves three rows), unless a line input is on top: it takes it as text.
     * Keys wait behind an unfinished chunk so their order is kept.
     */
    dispatch(input: string, key: Key): boolean {
      // Mouse reports are never text: should one come this way (as Ink strips it: `[<64;10;5M`), it is read as mouse.
      if (isMouseInput(input)) {
        for (const event of parseMouseReports(input)) mouse(event);
        return true;
      }
      const chunk = isChunk(input, key);
      const waiting = busy();
      if (!waiting && (!chunk || (textOnTop() && ![...input].some(isKeyChar)))) {
        const typing = textOnTop();
        const took = typing && chunk ? typeInto(input) : offer(input, key);
        // Ink hands over every key of one read in one go (`↓↓` held down): the ones after this wait
        // until it is drawn. A line input reads its own latest state (a ref), so typing never waits.
        if (!typing) {
          settling = true;
          afterRender(drain);
        }
        return took;
      }
      if (chunk) pending.push(...[...input].map((char) => ({ input: char, key: plainKey, char: true })));
      else pending.push({ input, key, char: false });
      if (!waiting) drain();
      return true;
    },
  };
}

const RouterContext = createContext<KeyRouter | undefined>(undefined);

/**
 * Owns the only ink `useInput` of the console and hands each key to the router, and reads mouse
 * reports off stdin before Ink does (Ink would drop them) for the router's mouse handling.
 */
export function InputRouter({ children }: { children: ReactNode }) {
  const [router] = useState(createKeyRouter);
  const { stdin } = useStdin();
  useInput((input, key) => { router.dispatch(input, key); });
  useLayoutEffect(() => tapMouseReports(stdin, router.mouse), [stdin, router]);
  return <RouterContext value={router}>{children}</RouterContext>;
}

/** The router of the `<InputRouter>` above (for hooks that register with it, like `useClickRegion`). */
export function useKeyRouter(): KeyRouter {
  const router = useContext(RouterContext);
  if (!router) throw new Error('this hook needs an <InputRouter> above it');
  return router;
}

export interface KeysOptions {
  layer: LayerKind;
  /** An inactive layer is not on the stack at all (a pane that is not focused, a dialog waiting). */
  active?: boolean;
  /** Keys the handler does not take stop at this layer (Ctrl-C excepted): a dialog or a field that takes typed text. */
  modal?: boolean;
}

/**
 * Puts a key layer on the router while the component is mounted (and `active`). The layer's place
 * is fixed at mount, so an overlay opened later is above one opened earlier. `top` says this layer
 * gets keys first: a text input inside it takes focus only then, so typed letters never reach
 * another layer's keys.
 */
export function useKeys(handler: KeyHandler, options: KeysOptions): { top: boolean } {
  const router = useContext(RouterContext);
  if (!router) throw new Error('useKeys needs an <InputRouter> above it');
  const [seq] = useState(() => router.nextSeq());
  const latest = useRef({ handler, modal: options.modal ?? false });
  useLayoutEffect(() => { latest.current = { handler, modal: options.modal ?? false }; });
  const [top, setTop] = useState(false);
  const active = options.active ?? true;
  const kind = options.layer;
  // Layout effects: the layer is on the stack (and `top` known) before the frame is drawn.
  useLayoutEffect(() => {
    if (!active) return undefined;
    const layer: KeyLayer = { kind, seq, modal: () => latest.current.modal, handle: (input, key) => latest.current.handler(input, key) };
    const stop = router.subscribe(() => setTop(router.top() === layer));
    const remove = router.add(layer);
    return () => {
      stop();
      remove();
      setTop(false);
    };
  }, [router, active, kind, seq]);
  return { top: active && top };
}
