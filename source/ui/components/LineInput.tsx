import { Text, type Key } from 'ink';
import { useRef, useState } from 'react';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

export interface Line {
  value: string;
  /** Where the next character goes: 0 before the first, value.length after the last. */
  cursor: number;
}

/**
 * One key applied to a line being edited, with the usual line-editing keys: Ctrl-U clears to the
 * start, Ctrl-W deletes the word before the cursor, Ctrl-K to the end, Ctrl-A / Ctrl-E (Home / End)
 * move to the start / end. `undefined`: not an editing key (Enter, Esc, Tab, ↑↓, other Ctrl keys),
 * left to the layer that holds the input.
 */
export function editLine(line: Line, input: string, key: Key): Line | undefined {
  const { value, cursor } = line;
  if (key.return || key.escape || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.meta) return undefined;
  if (key.leftArrow) return { value, cursor: Math.max(0, cursor - 1) };
  if (key.rightArrow) return { value, cursor: Math.min(value.length, cursor + 1) };
  if (key.home || (key.ctrl && input === 'a')) return { value, cursor: 0 };
  if (key.end || (key.ctrl && input === 'e')) return { value, cursor: value.length };
  if (key.ctrl && input === 'u') return { value: value.slice(cursor), cursor: 0 };
  if (key.ctrl && input === 'k') return { value: value.slice(0, cursor), cursor };
  if (key.ctrl && input === 'w') {
    const start = value.slice(0, cursor).replace(/\S+\s*$|\s+$/, '').length;
    return { value: value.slice(0, start) + value.slice(cursor), cursor: start };
  }
  if (key.ctrl) return undefined;
  if (key.backspace || key.delete) {
    if (cursor === 0) return line;
    return { value: value.slice(0, cursor - 1) + value.slice(cursor), cursor: cursor - 1 };
  }
  // A paste may bring line breaks: the line keeps them as spaces.
  const text = input.replace(/\r\n|[\r\n]/g, ' ');
  if (text === '') return line;
  return { value: value.slice(0, cursor) + text + value.slice(cursor), cursor: cursor + text.length };
}

/**
 * A one-line text input on the console's input router (in place of ink-text-input): it takes
 * typed text and editing keys while `focus` (its holder's layer is on top); Enter submits when
 * `onSubmit` is given, and every other key goes to the holder's layer.
 */
export function LineInput({ value, onChange, onSubmit, focus = true, mask, placeholder = '' }: {
  value: string; onChange: (value: string) => void; onSubmit?: (value: string) => void; focus?: boolean; mask?: string; placeholder?: string;
}) {
  // The line as the last key left it (several keys may come before the next render); a value
  // changed from outside (another field) puts the cursor at its end.
  const line = useRef<Line>({ value, cursor: value.length });
  if (line.current.value !== value) line.current = { value, cursor: value.length };
  const [, redraw] = useState(0);
  useKeys((input, key) => {
    if (key.return) {
      if (!onSubmit) return false;
      onSubmit(line.current.value);
      return true;
    }
    const next = editLine(line.current, input, key);
    if (!next) return false;
    const changed = next.value !== line.current.value;
    line.current = next;
    redraw((count) => count + 1);
    if (changed) onChange(next.value);
    return true;
  }, { layer: 'text', active: focus });

  const shown = mask ? mask.repeat(value.length) : value;
  if (!focus) return <Text color={shown ? undefined : theme.dim}>{shown || placeholder}</Text>;
  const at = line.current.cursor;
  if (shown === '' && placeholder) return <Text><Text inverse>{placeholder[0]}</Text><Text color={theme.dim}>{placeholder.slice(1)}</Text></Text>;
  return <Text>{shown.slice(0, at)}<Text inverse>{shown[at] ?? ' '}</Text>{shown.slice(at + 1)}</Text>;
}
