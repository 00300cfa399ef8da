import { useMemo } from 'react';
import type { ConsoleState } from '../console-model.js';
import { ListView, type RowSource } from '../components/ListView.js';
import { clockTime } from '../format.js';
import { theme } from '../theme.js';

const levelColor: Record<string, string | undefined> = { warn: theme.warn, error: theme.error, fatal: theme.error, debug: theme.dim, trace: theme.dim };

/** The tail of gateway log lines, newest at the bottom, filtered by a case-insensitive text. */
export function LogsPane({ state, height, width, focused, filter }: { state: ConsoleState; height: number; width: number; focused: boolean; filter: string }) {
  const rows = useMemo<RowSource>(() => {
    const needle = filter.toLowerCase();
    const lines = needle ? state.logs.filter((line) => line.message.toLowerCase().includes(needle)) : state.logs;
    // Newest first, the last 500, each row built only when it is on screen.
    return {
      length: Math.min(500, lines.length),
      at: (index) => {
        const line = lines[lines.length - 1 - index];
        return line ? { key: `${line.atMs}-${index}`, text: `${clockTime(line.atMs)} ${line.level.padEnd(5)} ${line.message}`, color: levelColor[line.level] } : undefined;
      },
    };
  }, [state.logs, filter]);
  return <ListView rows={rows} height={height} width={width} focused={focused} empty={filter ? `No log lines match "${filter}".` : 'No log lines yet.'} />;
}
