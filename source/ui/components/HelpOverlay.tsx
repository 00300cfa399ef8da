import { Box } from 'ink';
import { column } from '../format.js';
import { keymap, type KeyBinding } from '../keymap.js';
import { slashCommands } from '../slash-commands.js';
import { theme } from '../theme.js';
import { ScrollText, type TextLine } from './ScrollText.js';

/**
 * Every key of the keymap (two columns where they fit) and every slash command but /help with its
 * description. It scrolls like a details view (↑↓ PgUp/PgDn g G, F finds); any other key closes it.
 */
export function HelpOverlay({ width, height }: { width: number; height: number }) {
  const inner = width - 4;
  const columns = inner >= 116 ? 2 : 1;
  const columnWidth = Math.floor(inner / columns);
  const line = (binding: KeyBinding | undefined) => {
    if (!binding) return '';
    const scope = binding.scope === 'global' || binding.scope === 'list' ? '' : ` (${binding.scope})`;
    return `${column(binding.keys, 11)} ${column(`${binding.description}${scope}`, columnWidth - 13)} `;
  };
  const rows = Math.ceil(keymap.length / columns);
  const lines: TextLine[] = [
    { text: 'Keys', bold: true },
    ...Array.from({ length: rows }, (_unused, row) => ({ text: Array.from({ length: columns }, (_none, at) => line(keymap[at * rows + row])).join('').trimEnd() })),
    { text: 'Commands', bold: true },
    // A command whose description does not fit beside it gets it on the next line, indented (it wraps there).
    ...slashCommands.filter((command) => command.name !== 'help').flatMap((command) => (command.usage.length <= 26 && 27 + command.description.length <= inner
      ? [{ text: `${column(command.usage, 26)} ${command.description}` }]
      : [{ text: command.usage }, { text: `    ${command.description}` }])),
  ];
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.accent} paddingX={1} width={width} height={height}>
      <ScrollText lines={lines} height={height - 2} width={inner} focused layer="overlay" hint="other keys close this help · ↑↓ PgUp PgDn g G scroll" />
    </Box>
  );
}
