import { useInput, type Key } from 'ink';
import { createContext, useContext, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** What a layer says about a key: `true` takes it; anything else offers it to the layer below. */
export type KeyHandler = (input: string, key: Key) => boolean | void;

/** Where a layer sits: overlays (dialogs, forms, prompts) over the focused pane over the global keymap. */
export type LayerKind = 'overlay' | 'pane' | 'global';

const rank: Record<LayerKind, number> = { overlay: 0, pane: 1, global: 2 };

export interface KeyLayer {
  kind: LayerKind;
  /** Order of arrival: within a kind, the newer layer is on top. */
  seq: number;
  /** A modal layer owns the keyboard: keys it does not take stop there, except Ctrl-C (quit works from everywhere). */
  modal(): boolean;
  handle: KeyHandler;
}

export type KeyRouter = ReturnType<typeof createKeyRouter>;

const isCtrlC = (input: string, key: Key) => key.ctrl && input === 'c';

/**
 * The console's one input router: every key is offered to the layers top first (the newest overlay,
 * then the focused pane, then the global keymap) until one takes it or a modal layer stops it.
 */
export function createKeyRouter() {
  const layers = new Set<KeyLayer>();
  const listeners = new Set<() => void>();
  let seq = 0;
  const ordered = () => [...layers].sort((a, b) => rank[a.kind] - rank[b.kind] || b.seq - a.seq);
  const changed = () => { for (const listener of [...listeners]) listener(); };
  return {
    nextSeq: () => ++seq,
    /** Adds a layer; the returned function takes it away again. */
    add(layer: KeyLayer): () => void {
      layers.add(layer);
      changed();
      return () => { if (layers.delete(layer)) changed(); };
    },
    /** The layer that is offered keys first. */
    top: (): KeyLayer | undefined => ordered()[0],
    /** Called whenever a layer comes or goes. */
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    /** Offers one key down the layers; says whether a layer took it. */
    dispatch(input: string, key: Key): boolean {
      for (const layer of ordered()) {
        if (layer.handle(input, key) === true) return true;
        if (layer.modal() && !isCtrlC(input, key)) return true;
      }
      return false;
    },
  };
}

const RouterContext = createContext<KeyRouter | undefined>(undefined);

/** Owns the only ink `useInput` of the console and hands each key to the router. */
export function InputRouter({ children }: { children: ReactNode }) {
  const [router] = useState(createKeyRouter);
  useInput((input, key) => { router.dispatch(input, key); });
  return <RouterContext value={router}>{children}</RouterContext>;
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
