import { Box, Text } from 'ink';
import { useMemo, useRef, useState } from 'react';
import { useKeys } from '../input-router.js';
import { commandFor } from '../keymap.js';
import { fit, wrapText } from '../format.js';
import { theme } from '../theme.js';
import { LineInput } from './LineInput.js';

/** One line of a text view, before wrapping. */
export interface TextLine { text: string; color?: string; dim?: boolean; bold?: boolean }

interface Row extends TextLine { source: number }

/**
 * The wrapped rows of the lines, each knowing the line it came from. A wrapped line's continuation
 * rows keep its indentation (up to a third of the width), so indented text stays in its column.
 */
export function wrapLines(lines: readonly TextLine[], width: number): Row[] {
  return lines.flatMap((line, source) => {
    const flat = line.text.replace(/\t/g, '  ').replace(/\r/g, '');
    const indent = ' '.repeat(Math.min(/^ */.exec(flat)![0].length, Math.floor(width / 3)));
    const [first = '', ...rest] = wrapText(flat, width, true);
    const more = rest.length === 0 ? [] : wrapText(rest.join(''), width - indent.length, true).map((text) => indent + text);
    return [first, ...more].map((text) => ({ ...line, text, source }));
  });
}

/**
 * A details view or a long text (Output): wrapped to the width, scrolled with ↑↓ j k, PgUp/PgDn,
 * g/Home and G/End, with the position on its last line ("lines 12-40/340"). F finds a text (case
 * ignored): the view jumps to the first line holding it, n and N go to the next and previous,
 * and the matches show inverted. Its keys sit above the list it opened from (a newer pane layer),
 * so Esc and the pane's own keys (r, c, e) still reach the list.
 */
export function ScrollText({ lines, height, width, focused, hint, layer = 'pane' }: {
  lines: readonly TextLine[]; height: number; width: number; focused: boolean;
  /** The keys of the view's pane, after the position (Esc back · r replay ...). */
  hint: string;
  /** Inside an overlay (the help), the view's keys sit above the overlay's own. */
  layer?: 'pane' | 'overlay';
}) {
  const rows = useMemo(() => wrapLines(lines, width), [lines, width]);
  const size = Math.max(1, height - 1);
  const [top, setTop] = useState(0);
  const [find, setFind] = useState<{ text: string; editing: boolean }>({ text: '', editing: false });
  const maxTop = Math.max(0, rows.length - size);
  const start = Math.min(top, maxTop);
  // Read by keys that arrive before the next render (a chunk of `jjj`).
  const at = useRef(start);
  at.current = start;
  const scrollTo = (row: number) => {
    at.current = Math.min(Math.max(0, row), maxTop);
    setTop(at.current);
  };
  const needle = find.text.toLowerCase();
  const matches = useMemo(() => matchingRows(rows, needle), [rows, needle]);
  /** To the next match below (or above) the top row, wrapping around. */
  const jump = (forward: boolean, among = matches, from = at.current) => {
    if (among.length === 0) return;
    scrollTo(forward ? among.find((index) => index > from) ?? among[0]! : [...among].reverse().find((index) => index < from) ?? among.at(-1)!);
  };

  const { top: onTop } = useKeys((input, key) => {
    if (find.editing) {
      if (key.escape) setFind({ text: '', editing: false });
      return key.escape;
    }
    if (input === 'F' && !key.ctrl && !key.meta) {
      setFind({ text: find.text, editing: true });
      return true;
    }
    const binding = commandFor(input, key, matches.length > 0 ? ['view', 'list'] : ['list']);
    switch (binding?.command) {
      case 'list.up': scrollTo(at.current - 1); return true;
      case 'list.down': scrollTo(at.current + 1); return true;
      case 'list.pageUp': scrollTo(at.current - Math.max(1, size - 1)); return true;
      case 'list.pageDown': scrollTo(at.current + Math.max(1, size - 1)); return true;
      case 'list.top': scrollTo(0); return true;
      case 'list.bottom': scrollTo(maxTop); return true;
      case 'find.next': jump(true); return true;
      case 'find.previous': jump(false); return true;
      default: return false;
    }
  }, { layer, active: focused, modal: find.editing });

  const end = Math.min(rows.length, start + size);
  const position = rows.length <= size ? `${rows.length} line(s)` : `lines ${start + 1}-${end}/${rows.length} ${Math.round((end / rows.length) * 100)}%`;
  const found = needle ? (matches.length === 0 ? ` · "${find.text}" not found` : ` · "${find.text}": ${matches.length} line(s), n / N`) : '';
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      {rows.slice(start, end).map((row, offset) => (
        <Text key={start + offset} color={row.color} dimColor={row.dim} bold={row.bold}>{marked(row.text || ' ', needle)}</Text>
      ))}
      {Array.from({ length: size - (end - start) }, (_unused, index) => <Text key={`pad-${index}`}> </Text>)}
      {find.editing ? (
        <Box>
          <Text color={theme.accent}>find: </Text>
          <LineInput value={find.text} focus={onTop} onChange={(text) => setFind({ text, editing: true })} onSubmit={(text) => {
            setFind({ text, editing: false });
            // The text typed just now: Enter may come before the render that would list its matches.
            jump(true, matchingRows(rows, text.toLowerCase()), at.current - 1);
          }} />
        </Box>
      ) : <Text color={theme.dim}>{fit(`${position}${found} · ${hint}`, width)}</Text>}
    </Box>
  );
}

/** The rows holding the needle (none for an empty one). */
function matchingRows(rows: readonly Row[], needle: string): number[] {
  return needle ? rows.flatMap((row, index) => (row.text.toLowerCase().includes(needle) ? [index] : [])) : [];
}

/** The text with every match of the needle inverted. */
function marked(text: string, needle: string) {
  if (!needle) return text;
  const lower = text.toLowerCase();
  const parts: Array<{ text: string; match: boolean }> = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) {
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + needle.length), match: true });
    from = at + needle.length;
  }
  if (parts.length === 0) return text;
  parts.push({ text: text.slice(from), match: false });
  return parts.map((part, index) => <Text key={index} inverse={part.match}>{part.text}</Text>);
}
