import { Box, Text, type DOMElement, type Key } from 'ink';
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useKeys } from '../input-router.js';
import { useClickRegion } from '../hooks/useClickRegion.js';
import { commandFor, type CommandName, type KeyScope } from '../keymap.js';
import { CUT_MARK, fit } from '../format.js';
import { filterRows } from '../row-filter.js';
import { theme } from '../theme.js';

export interface ListRow {
  key: string;
  text: string;
  color?: string;
  dim?: boolean;
  /** The pane's item behind the row: still there when the row has left the list (see `gone`). */
  item?: unknown;
  /** Coloured pieces of `text` (their texts joined must equal it); cut to the width like `text`. */
  parts?: ReadonlyArray<{ text: string; color?: string; dim?: boolean }>;
  /** The row's columns by name, for the pane filter's `field:value` (see row-filter.ts). */
  fields?: Readonly<Record<string, string>>;
}

/** A pane's filter (F) as App holds it, handed on to the pane's list. */
export interface PaneFilter { filter?: string; onClearFilter?: () => void }

/** The rows of a list: an array, or rows built on demand (only the visible ones are ever built). */
export interface RowSource {
  readonly length: number;
  at(index: number): ListRow | undefined;
  /** Where the row with this key is now (-1: gone); without it the rows are scanned. */
  keyIndex?(key: string): number;
}

/** What the list keeps between renders: the selected row's key, not its index, so arriving rows never move it. */
interface Selection { key?: string; index: number; follow: boolean }

/** The lists that follow the newest row (the Webhook deliveries pane) take `f`. */
const followKey = (input: string, key: Key) => commandFor(input, key, ['webhooks'])?.command === 'list.follow';

/**
 * A windowed, selectable list: only the rows that fit are rendered, so a ring of thousands costs
 * one screenful. The selection sticks to its row's key as rows arrive or go; while it is on the top
 * row the list follows the newest (f toggles that where `followable`). Enter opens `details` for
 * the selected row, Esc closes it; the pane's own keys (`scopes`) reach `onCommand` with the
 * selected row. `title` adds a line with the position ("12/340"), the filter and the follow state.
 * PgUp/PgDn move a page, g/Home to the top (the newest; following again), G/End to the bottom.
 * `filter` (the pane's F) keeps the matching rows; Esc clears it through `onClearFilter`.
 */
export function ListView({ rows: source, height, width, focused, empty, details, scopes = [], onCommand, title, followable = false, inline, filter = '', fields = [], onClearFilter }: {
  rows: RowSource; height: number; width: number; focused: boolean; empty: string;
  details?: (row: ListRow) => ReactNode;
  scopes?: readonly KeyScope[];
  onCommand?: (command: CommandName, row: ListRow | undefined) => void;
  title?: string;
  followable?: boolean;
  /** Drawn right under the selected row (a prompt about it, such as the test payload editor), `lines` high. */
  inline?: { node: ReactNode; lines: number };
  filter?: string;
  /** The names `field:value` may use in this pane's filter. */
  fields?: readonly string[];
  onClearFilter?: () => void;
}) {
  const filtered = useMemo(() => filterRows(source, filter, fields), [source, filter, fields]);
  const rows = filtered.rows;
  const [selection, setSelection] = useState<Selection>({ index: 0, follow: true });
  const [open, setOpen] = useState(false);
  // Open details keep their row even while following: new rows must not swap what is being read.
  const last = useRef(selection);
  // Lists that do not follow the newest keep the selected key on the top row too (before any move:
  // the key drawn last), as rows reorder.
  const { index, gone } = resolve(rows, { ...selection, key: selection.key ?? last.current.key }, !(followable && selection.follow) || open);
  // A selected row that left the list (a ring dropped it) stays the one r, c and Enter act on.
  const remembered = useRef<ListRow | undefined>(undefined);
  const selected = gone ? (remembered.current?.key === selection.key ? remembered.current : undefined) : rows.at(index);
  if (!gone) remembered.current = selected;
  last.current = { ...selection, key: selected?.key ?? selection.key, index };
  const move = (to: number) => {
    const target = Math.min(Math.max(0, rows.length - 1), Math.max(0, to));
    setSelection({ key: rows.at(target)?.key, index: target, follow: target === 0 });
  };
  const listHeight = Math.max(1, height - (title === undefined ? 0 : 1) - (inline?.lines ?? 0));
  const page = Math.max(1, listHeight - 1);
  const { start, end } = windowOf(index, rows.length, listHeight);
  // The focused pane's layer: its own keys; the rest falls through to the global keymap.
  useKeys((input, key) => {
    if (followable && !open && followKey(input, key)) {
      const follow = !last.current.follow;
      setSelection(follow ? { key: rows.at(0)?.key, index: 0, follow } : { ...last.current, follow });
      return true;
    }
    const binding = commandFor(input, key, [...scopes, 'list']);
    if (!binding) return false;
    switch (binding.command) {
      case 'list.up': move(index - 1); break;
      case 'list.down': move(index + 1); break;
      case 'list.pageUp': move(index - page); break;
      case 'list.pageDown': move(index + page); break;
      case 'list.top': move(0); break;
      case 'list.bottom': move(rows.length - 1); break;
      case 'item.open': if (details && selected) { setSelection({ ...last.current }); setOpen(true); } break;
      case 'item.close':
        if (open) setOpen(false);
        else if (filter && onClearFilter) onClearFilter();
        else return false;
        break;
      default: onCommand?.(binding.command, selected);
    }
    return true;
  }, { layer: 'pane', active: focused });

  const filterNote = filter ? ` · filter "${filter}"${filtered.error ? `: ${filtered.error}` : ` (${rows.length} of ${source.length}; Esc clears)`}` : '';
  // A click selects a row; a click on the selected row opens it (as Enter does).
  const box = useRef<DOMElement>(null);
  useClickRegion(box, ({ row }) => {
    const titleLines = title === undefined ? 0 : 1;
    let at = start + row - titleLines;
    if (row < titleLines) return;
    if (inline && at > index) {
      if (at <= index + inline.lines) return; // in the inline editor: its own keys
      at -= inline.lines;
    }
    if (at >= end) return;
    if (at !== index) return move(at);
    if (details && selected) {
      setSelection({ ...last.current });
      setOpen(true);
    }
  }, { active: focused && !open && rows.length > 0 });

  const titleLine = title === undefined ? null : (
    <Text color={theme.dim}>{fit(`${title} · ${rows.length === 0 ? '0/0' : gone ? `the selected row left the list (${rows.length} kept)` : `${index + 1}/${rows.length}`}${filterNote}${followable ? (selection.follow ? ' · following newest (f stops)' : ' · paused (f follows)') : ''}`, width)}</Text>
  );
  if (open && selected && details) return <Box flexDirection="column" height={height} overflow="hidden">{details(selected)}</Box>;
  if (rows.length === 0) {
    const why = filter ? (filtered.error ? `Filter "${filter}": ${filtered.error}.` : `No row matches "${filter}" (F changes the filter, Esc clears it).`) : empty;
    return <Box flexDirection="column" height={height}>{titleLine}<Text color={theme.dim}>{why}</Text></Box>;
  }
  return (
    <Box ref={box} flexDirection="column" height={height} overflow="hidden">
      {titleLine}
      {Array.from({ length: end - start }, (_unused, offset) => rows.at(start + offset)!).flatMap((row, offset) => [
        <Text key={row.key} inverse={(focused || inline !== undefined) && !gone && start + offset === index} color={row.color} dimColor={row.dim}>
          {row.parts ? fitParts(row.parts, width).map((part, at) => <Text key={at} color={part.color} dimColor={part.dim}>{part.text}</Text>) : fit(row.text, width)}
        </Text>,
        ...(inline && start + offset === index ? [<Box key="inline" flexDirection="column" flexShrink={0}>{inline.node}</Box>] : []),
      ])}
    </Box>
  );
}

/** The selected index now: the top while following, else where the selected key went (`gone`: its old place, clamped). */
function resolve(rows: RowSource, selection: Selection, pinned: boolean): { index: number; gone: boolean } {
  const clamp = (value: number) => Math.min(Math.max(0, value), Math.max(0, rows.length - 1));
  if (!pinned || selection.key === undefined) return { index: clamp(selection.follow ? 0 : selection.index), gone: false };
  if (rows.at(selection.index)?.key === selection.key) return { index: selection.index, gone: false };
  const found = rows.keyIndex ? rows.keyIndex(selection.key) : scan(rows, selection.key);
  return found >= 0 ? { index: found, gone: false } : { index: clamp(selection.index), gone: true };
}

function scan(rows: RowSource, key: string): number {
  for (let index = 0; index < rows.length; index += 1) if (rows.at(index)?.key === key) return index;
  return -1;
}

/** The rows that fit, with the selection kept near the middle. */
function windowOf(index: number, length: number, height: number): { start: number; end: number } {
  const size = Math.max(1, height);
  const start = Math.min(Math.max(0, index - Math.floor(size / 2)), Math.max(0, length - size));
  return { start, end: Math.min(length, start + size) };
}

/** Cuts coloured pieces so that together they fit `width` (columns padded with spaces stay aligned). */
function fitParts(parts: NonNullable<ListRow['parts']>, width: number): NonNullable<ListRow['parts']> {
  const flat = parts.map((part) => ({ ...part, text: part.text.replace(/[\r\n\t]+/g, ' ') }));
  const total = flat.reduce((sum, part) => sum + part.text.length, 0);
  if (total <= width) return flat;
  const out: typeof flat = [];
  let room = Math.max(0, width - 1);
  for (const part of flat) {
    if (room <= 0) break;
    out.push({ ...part, text: part.text.slice(0, room) });
    room -= part.text.length;
  }
  if (out.length > 0 && width > 0) out[out.length - 1] = { ...out[out.length - 1]!, text: `${out[out.length - 1]!.text}${CUT_MARK}` };
  return out;
}
