import { Box, Text } from 'ink';
import { useState, type ReactNode } from 'react';
import { useSelectableList } from '../hooks/useSelectableList.js';
import { useKeys } from '../input-router.js';
import { commandFor, type CommandName, type KeyScope } from '../keymap.js';
import { CUT_MARK, fit } from '../format.js';
import { theme } from '../theme.js';

export interface ListRow {
  key: string;
  text: string;
  color?: string;
  dim?: boolean;
  /** Coloured pieces of `text` (their texts joined must equal it); cut to the width like `text`. */
  parts?: ReadonlyArray<{ text: string; color?: string; dim?: boolean }>;
}

/** The rows of a list: an array, or rows built on demand (only the visible ones are ever built). */
export interface RowSource {
  readonly length: number;
  at(index: number): ListRow | undefined;
}

/**
 * A windowed, selectable list: only the rows that fit are rendered, so a ring of thousands costs
 * one screenful. Enter opens `details` for the selected row, Esc closes it; the pane's own keys
 * (`scopes`) reach `onCommand` with the selected row.
 */
export function ListView({ rows, height, width, focused, empty, details, scopes = [], onCommand }: {
  rows: RowSource; height: number; width: number; focused: boolean; empty: string;
  details?: (row: ListRow) => ReactNode;
  scopes?: readonly KeyScope[];
  onCommand?: (command: CommandName, row: ListRow | undefined) => void;
}) {
  const list = useSelectableList(rows.length, height);
  const [open, setOpen] = useState(false);
  const selected = rows.at(list.index);
  // The focused pane's layer: its own keys; the rest falls through to the global keymap.
  useKeys((input, key) => {
    const binding = commandFor(input, key, [...scopes, 'list']);
    if (!binding) return false;
    switch (binding.command) {
      case 'list.up': list.up(); break;
      case 'list.down': list.down(); break;
      case 'item.open': if (details && selected) setOpen(true); break;
      case 'item.close': setOpen(false); break;
      default: onCommand?.(binding.command, selected);
    }
    return true;
  }, { layer: 'pane', active: focused });

  if (open && selected && details) return <Box flexDirection="column" height={height} overflow="hidden">{details(selected)}</Box>;
  if (rows.length === 0) return <Box height={height}><Text color={theme.dim}>{empty}</Text></Box>;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      {Array.from({ length: list.end - list.start }, (_unused, offset) => rows.at(list.start + offset)!).map((row, offset) => (
        <Text key={row.key} inverse={focused && list.start + offset === list.index} color={row.color} dimColor={row.dim}>
          {row.parts ? fitParts(row.parts, width).map((part, index) => <Text key={index} color={part.color} dimColor={part.dim}>{part.text}</Text>) : fit(row.text, width)}
        </Text>
      ))}
    </Box>
  );
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
