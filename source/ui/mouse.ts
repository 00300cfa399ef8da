/**
 * Mouse support for the console: wheel scrolling and click-to-select, keyboard complete without it.
 *
 * Terminals: the SGR extended reporting mode (DEC private mode 1006) on top of button-event
 * tracking (mode 1000). xterm, VTE (GNOME Terminal, Tilix), Konsole, kitty, Alacritty, WezTerm,
 * iTerm2, Windows Terminal, foot and tmux (with `set -g mouse on`) speak it. A report reads
 * `ESC [ < b ; x ; y M` (press, wheel) or `... m` (release), 1-based cell coordinates, so there is
 * no 223-column limit as in the legacy X10 encoding. A terminal without 1006 ignores the request
 * and sends nothing: the console then just has no mouse. No motion tracking (1002/1003) is asked
 * for, so moving the pointer costs nothing.
 *
 * Wheel becomes arrow keys: one ↑ or ↓ per notch goes down the input router like a key press, so
 * every list, details view and dialog scrolls with what it already does for the arrows, and the
 * layer on top (a dialog over a pane) gets it first, as it would the key.
 *
 * Ink 8 never hands a mouse report to `useInput`: its App drops a complete control sequence that
 * names no key. The router therefore reads reports off stdin before Ink parses it
 * (`tapMouseReports`), and Ink never sees their bytes, so a report cannot become typed text.
 *
 * With reporting on, the terminal's own text selection needs Shift held while dragging (Option in
 * iTerm2) in most terminals. `switchboard --no-mouse` or `SWITCHBOARD_NO_MOUSE=1` leaves reporting
 * off, for terminals where that is awkward.
 */

/** Turns on button-event tracking (press, release, wheel) reported in SGR form. */
export const mouseOn = '\u001B[?1000h\u001B[?1006h';
/** Turns it off again (the reverse order). */
export const mouseOff = '\u001B[?1006l\u001B[?1000l';

export interface MouseEvent {
  kind: 'wheelUp' | 'wheelDown' | 'press' | 'release';
  /** 0-based column and row of the cell, from the top left of the screen. */
  x: number;
  y: number;
  /** 0 left, 1 middle, 2 right; a wheel says 4 (up) or 5 (down), as X11 numbers them. */
  button: number;
  shift: boolean;
  meta: boolean;
  ctrl: boolean;
}

// eslint-disable-next-line no-control-regex -- a report starts with ESC
const reportSource = /\u001B\[<(\d{1,4});(\d{1,5});(\d{1,5})([Mm])/.source;
/** The same report as Ink's `useInput` would hand it over if it ever did: the ESC stripped. */
// eslint-disable-next-line no-control-regex -- an optional leading ESC
const strippedReports = /^(?:\u001B?\[<\d{1,4};\d{1,5};\d{1,5}[Mm])+$/;
// eslint-disable-next-line no-control-regex -- an unfinished report at the end of a read
const unfinishedReport = /\u001B\[<[\d;]{0,16}$/;

/** One report's fields as a mouse event; undefined for what the console does not use (motion, horizontal wheel) or what is malformed. */
function eventOf(code: number, column: number, line: number, final: string): MouseEvent | undefined {
  if (column < 1 || line < 1) return undefined;
  const base = { x: column - 1, y: line - 1, shift: (code & 4) !== 0, meta: (code & 8) !== 0, ctrl: (code & 16) !== 0 };
  if (code & 32) return undefined; // motion: not asked for
  if (code & 64) {
    const wheel = code & 3;
    if (wheel > 1 || final === 'm') return undefined; // horizontal wheel; a wheel has no release
    return { ...base, kind: wheel === 0 ? 'wheelUp' : 'wheelDown', button: 4 + wheel };
  }
  if (code & 128) return undefined; // extra buttons 8-11
  const button = code & 3;
  if (button === 3) return undefined; // legacy "released", never sent in SGR form
  return { ...base, kind: final === 'M' ? 'press' : 'release', button };
}

/** Every SGR report in `text` (with or without its ESC), in order; what is not one is skipped. */
export function parseMouseReports(text: string): MouseEvent[] {
  const events: MouseEvent[] = [];
  // eslint-disable-next-line no-control-regex -- accept the ESC-stripped form Ink uses for input
  const pattern = /\u001B?\[<(\d{1,4});(\d{1,5});(\d{1,5})([Mm])/g;
  for (const match of text.matchAll(pattern)) {
    const event = eventOf(Number(match[1]), Number(match[2]), Number(match[3]), match[4]!);
    if (event) events.push(event);
  }
  return events;
}

/** Whether `input` (as a key handler would get it) is nothing but mouse reports. */
export const isMouseInput = (input: string): boolean => strippedReports.test(input);

export type MousePiece = { text: string } | { mouse: MouseEvent | undefined };

/**
 * Splits what stdin delivers into text (for Ink) and mouse reports, in order. A report cut at the
 * end of a read waits for the next one; a report whose ESC or `ESC [` ended the read before has
 * already gone to Ink, which waits for the rest: the rest then still goes to Ink (which drops the
 * finished sequence) and the report is read here as well.
 */
export function createMouseFilter() {
  let held = '';
  let tail = '';
  return {
    push(chunk: string): MousePiece[] {
      const data = held + chunk;
      held = '';
      const pieces: MousePiece[] = [];
      let from = 0;
      if (tail !== '') {
        const joined = new RegExp(reportSource, 'y').exec(tail + data);
        if (joined) {
          pieces.push({ mouse: eventOf(Number(joined[1]), Number(joined[2]), Number(joined[3]), joined[4]!) });
          pieces.push({ text: data.slice(0, joined[0].length - tail.length) });
          from = joined[0].length - tail.length;
        }
      }
      const unfinished = unfinishedReport.exec(data.slice(from));
      const end = unfinished ? from + unfinished.index : data.length;
      if (unfinished) held = unfinished[0];
      // An unfinished report waits for the next read (a terminal writes a report at once: the rest follows).
      const reports = new RegExp(reportSource, 'g');
      reports.lastIndex = from;
      for (let match = reports.exec(data); match && match.index < end; match = reports.exec(data)) {
        if (match.index > from) pieces.push({ text: data.slice(from, match.index) });
        pieces.push({ mouse: eventOf(Number(match[1]), Number(match[2]), Number(match[3]), match[4]!) });
        from = match.index + match[0].length;
      }
      if (end > from) pieces.push({ text: data.slice(from, end) });
      const passed = data.slice(0, end);
      tail = passed.endsWith('\u001B[') ? '\u001B[' : passed.endsWith('\u001B') ? '\u001B' : '';
      return pieces;
    },
  };
}

/** The part of a readable stream Ink reads keys from. */
interface ReadableInput {
  read: (size?: number) => unknown;
}

/**
 * Puts a filter in front of Ink's reads of `stdin`: mouse reports go to `onMouse` (at their place
 * among the keys: Ink has handled the keys before a report when `onMouse` runs), the rest is
 * returned to Ink as read. Returns the function that takes the filter away.
 */
export function tapMouseReports(stdin: ReadableInput, onMouse: (event: MouseEvent) => void): () => void {
  const filter = createMouseFilter();
  const queue: MousePiece[] = [];
  const original = stdin.read;
  const read = function (this: unknown, size?: number): unknown {
    for (;;) {
      const piece = queue.shift();
      if (piece && 'text' in piece) return piece.text;
      if (piece) {
        if (piece.mouse) onMouse(piece.mouse);
        continue;
      }
      const chunk: unknown = original.call(this, size);
      // Ink sets utf8 on a raw-mode stdin: anything else is passed on untouched.
      if (typeof chunk !== 'string') return chunk;
      queue.push(...filter.push(chunk));
    }
  };
  stdin.read = read;
  return () => { if (stdin.read === read) stdin.read = original; };
}

/**
 * Mouse reporting on a terminal: `start` after the first frame, `stop` on every way out
 * (idempotent), `paused` around a program that gets the terminal ($EDITOR). Does nothing when
 * `enabled` is false.
 */
export function createMouseReporting(out: { write(data: string): unknown }, enabled: boolean) {
  let on = false;
  const set = (wanted: boolean) => {
    if (!enabled || on === wanted) return;
    on = wanted;
    out.write(wanted ? mouseOn : mouseOff);
  };
  return {
    start: () => set(true),
    stop: () => set(false),
    /** Runs `work` with reporting off (an editor must get plain keys), and turns it back on after. */
    async paused<T>(work: () => Promise<T>): Promise<T> {
      const was = on;
      set(false);
      try {
        return await work();
      } finally {
        if (was) set(true);
      }
    },
  };
}

/** Whether the console turns mouse reporting on: a terminal, and neither `--no-mouse` nor SWITCHBOARD_NO_MOUSE=1. */
export function wantsMouse(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  return isTTY && flag !== false && env.SWITCHBOARD_NO_MOUSE !== '1';
}
