import { useMemo } from 'react';
import type { ConsoleState } from '../console-model.js';
import { ListView, type PaneFilter, type RowSource } from '../components/ListView.js';
import { ScrollText } from '../components/ScrollText.js';
import { clockTime } from '../format.js';
import { theme } from '../theme.js';

const levelColor: Record<string, string | undefined> = { warn: theme.warn, error: theme.error, fatal: theme.error, debug: theme.dim, trace: theme.dim };
/** What `field:value` can name in this pane's filter. */
const logFields = ['level'];

/** The tail of gateway log lines, newest first; F filters them, Enter shows a whole line wrapped. */
export function LogsPane({ state, height, width, focused, ...filter }: PaneFilter & { state: ConsoleState; height: number; width: number; focused: boolean }) {
  const rows = useMemo<RowSource>(() => {
    const lines = state.logs;
    // Newest first, the last 500, each row built only when it is on screen (or read by a filter).
    return {
      length: Math.min(500, lines.length),
      at: (index) => {
        const line = lines[lines.length - 1 - index];
        return line ? { key: `${line.atMs}-${lines.length - 1 - index}`, text: `${clockTime(line.atMs)} ${line.level.padEnd(5)} ${line.message}`, color: levelColor[line.level], fields: { level: line.level } } : undefined;
      },
    };
  }, [state.logs]);
  return (
    <ListView
      rows={rows} height={height} width={width} focused={focused} title="Logs, newest first" {...filter} fields={logFields} empty="No log lines yet."
      details={(row) => <ScrollText lines={[{ text: row.text, color: row.color }]} height={height} width={width} focused={focused} hint="Esc back" />}
    />
  );
}
