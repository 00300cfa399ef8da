import { Box, Text } from 'ink';
import { fit } from '../format.js';
import { keymap, type KeyBinding } from '../keymap.js';
import { slashCommands } from '../slash-commands.js';
import { theme } from '../theme.js';

/**
 * Every key of the keymap (two columns, so it fits 80x24) and every slash command but /help, with
 * its description when there is room, else two to a line; any key closes it.
 */
export function HelpOverlay({ width, height }: { width: number; height: number }) {
  const columnWidth = Math.floor((width - 4) / 2);
  const half = Math.ceil(keymap.length / 2);
  const commands = slashCommands.filter((command) => command.name !== 'help');
  // Border 2, the two titles, the key rows.
  const roomForCommands = height - 4 - half;
  const line = (binding: KeyBinding | undefined) => {
    if (!binding) return '';
    const scope = binding.scope === 'global' || binding.scope === 'list' ? '' : ` (${binding.scope})`;
    return `${binding.keys.padEnd(11)} ${fit(`${binding.description}${scope}`, columnWidth - 13)}`.padEnd(columnWidth);
  };
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.accent} paddingX={1} width={width}>
      <Text><Text bold>Keys</Text><Text color={theme.dim}> · Any key closes this help.</Text></Text>
      {keymap.slice(0, half).map((binding, index) => (
        <Text key={binding.command + binding.scope}>{line(binding)}{line(keymap[half + index])}</Text>
      ))}
      <Text bold>Commands</Text>
      {commands.length <= roomForCommands ? commands.map((command) => (
        <Text key={command.usage}><Text color={theme.accent}>{fit(command.usage, 26).padEnd(26)}</Text> {fit(command.description, width - 32)}</Text>
      )) : Array.from({ length: Math.ceil(commands.length / 2) }, (_unused, row) => (
        <Text key={row} color={theme.accent}>{fit(commands[row * 2]!.usage, columnWidth - 1).padEnd(columnWidth)}{fit(commands[row * 2 + 1]?.usage ?? '', columnWidth - 1)}</Text>
      ))}
    </Box>
  );
}
