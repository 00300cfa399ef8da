import { Box, Text } from 'ink';
import type { ConsoleState } from '../console-model.js';
import { ListView } from '../components/ListView.js';
import { clockTime } from '../format.js';
import { theme } from '../theme.js';

/** Answers of console-started runs and `origin` deliveries; Enter shows the whole text. */
export function OutputPane({ state, height, width, focused, onCopy }: { state: ConsoleState; height: number; width: number; focused: boolean; onCopy: (text: string, what: string) => void }) {
  const rows = state.outputs.map((entry) => ({ key: entry.id, text: `${clockTime(entry.atMs)} ${entry.title}: ${entry.text}`, color: entry.ok ? undefined : theme.error }));
  return (
    <ListView
      rows={rows} height={height} width={width} focused={focused} empty="No output yet. Start a run with /run <prompt>."
      onCommand={(command, row) => {
        const entry = state.outputs.find((candidate) => candidate.id === row?.key);
        if (command === 'item.copy' && entry) onCopy(entry.text, 'output');
      }}
      details={(row) => {
        const entry = state.outputs.find((candidate) => candidate.id === row.key);
        return (
          <Box flexDirection="column">
            <Text bold>{entry?.title}</Text>
            {(entry?.text ?? '').split('\n').slice(0, Math.max(1, height - 2)).map((line, index) => <Text key={index}>{line}</Text>)}
            <Text color={theme.dim}>Esc back · c copy</Text>
          </Box>
        );
      }}
    />
  );
}
