import type { ConsoleState } from '../console-model.js';
import { ListView, type PaneFilter } from '../components/ListView.js';
import { ScrollText } from '../components/ScrollText.js';
import { clockTime } from '../format.js';
import { theme } from '../theme.js';

/** What `field:value` can name in this pane's filter. */
const outputFields = ['title', 'status'];

/** Answers of console-started runs and `origin` deliveries; Enter shows the whole text, wrapped and scrollable. */
export function OutputPane({ state, height, width, focused, onCopy, ...filter }: PaneFilter & { state: ConsoleState; height: number; width: number; focused: boolean; onCopy: (text: string, what: string) => void }) {
  const rows = state.outputs.map((entry) => ({
    key: entry.id, text: `${clockTime(entry.atMs)} ${entry.title}: ${entry.text}`, color: entry.ok ? undefined : theme.error,
    fields: { title: entry.title, status: entry.ok ? 'ok' : 'failed' },
  }));
  return (
    <ListView
      rows={rows} height={height} width={width} focused={focused} title="Output, newest first" {...filter} fields={outputFields}
      empty="No output yet. Start a run with /run <prompt>."
      onCommand={(command, row) => {
        const entry = state.outputs.find((candidate) => candidate.id === row?.key);
        if (command === 'item.copy' && entry) onCopy(entry.text, 'output');
      }}
      details={(row) => {
        const entry = state.outputs.find((candidate) => candidate.id === row.key);
        const lines = [{ text: `${clockTime(entry?.atMs ?? 0)} ${entry?.title ?? ''}`, bold: true }, ...(entry?.text ?? '').split('\n').map((text) => ({ text }))];
        return <ScrollText lines={lines} height={height} width={width} focused={focused} hint="Esc back · c copy" />;
      }}
    />
  );
}
