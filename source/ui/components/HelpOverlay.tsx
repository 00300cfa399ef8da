import { Box } from 'ink';
import { column, wrapText } from '../format.js';
import { keymap, type KeyBinding } from '../keymap.js';
import { slashCommands } from '../slash-commands.js';
import { theme } from '../theme.js';
import { ScrollText, type TextLine } from './ScrollText.js';

/** The keys column of a binding; its description starts one space after. */
const KEYS_WIDTH = 11;

/**
 * Every key of the keymap (two columns where they fit) and every slash command with its
 * description. It scrolls like a details view (↑↓ PgUp/PgDn g G, F finds); any other key closes it.
 */
export function HelpOverlay({ width, height }: { width: number; height: number }) {
  const inner = width - 4;
  const columns = inner >= 116 ? 2 : 1;
  const columnWidth = Math.floor(inner / columns);
  const rows = Math.ceil(keymap.length / columns);
  // A row of the columns takes as many lines as its longest description needs: nothing is cut.
  const keyLines = Array.from({ length: rows }, (_unused, row) => {
    const cells = Array.from({ length: columns }, (_none, at) => bindingLines(keymap[at * rows + row], columnWidth));
    const tallest = Math.max(...cells.map((cell) => cell.length));
    return Array.from({ length: tallest }, (_none, line) => ({ text: cells.map((cell) => (cell[line] ?? '').padEnd(columnWidth)).join('').trimEnd() }));
  }).flat();
  const lines: TextLine[] = [
    { text: 'Keys', bold: true },
    ...keyLines,
    { text: 'Commands', bold: true },
    // A command whose description does not fit beside it gets it on the next line, indented (it wraps there).
    ...slashCommands.flatMap((command) => (command.usage.length <= 26 && 27 + command.description.length <= inner
      ? [{ text: `${column(command.usage, 26)} ${command.description}` }]
      : [{ text: command.usage }, { text: `    ${command.description}` }])),
  ];
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.accent} paddingX={1} width={width} height={height}>
      <ScrollText lines={lines} height={height - 2} width={inner} focused layer="overlay" hint="other keys close this help · ↑↓ PgUp PgDn g G scroll" />
    </Box>
  );
}

/** A binding in a column `width` wide: its keys, and its description wrapped beside them (a space kept before the next column). */
function bindingLines(binding: KeyBinding | undefined, width: number): string[] {
  if (!binding) return [];
  const scope = binding.scope === 'global' || binding.scope === 'list' ? '' : ` (${binding.scope})`;
  return wrapText(`${binding.description}${scope}`, width - KEYS_WIDTH - 2, true)
    .map((part, index) => `${column(index === 0 ? binding.keys : '', KEYS_WIDTH)} ${part.trimEnd()}`);
}
