import { Box, Text } from 'ink';
import { useState } from 'react';
import type { Operations } from '../../operations/index.js';
import { clockTime, fit } from '../format.js';
import { useFetched } from '../hooks/useFetched.js';
import { useSelection } from '../hooks/useSelection.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

/**
 * The runs in flight (webhook, job, console and CLI runs alike): `x` cancels the selected one after a
 * `y`, through `runs.cancel`. A cancelled webhook run is recorded as cancelled, not run again. In
 * cluster mode each row names its node (`@node`): runs of other nodes are listed, and cancelled on theirs.
 */
export function RunsOverlay({ ops, runIds, runNodes = {}, node, width, height, onClose }: {
  ops: Pick<Operations, 'runs'>;
  runIds: readonly string[];
  /** Cluster mode: the node of each run of another node. */
  runNodes?: Readonly<Record<string, string>>;
  /** Cluster mode: the node this console is attached to. */
  node?: string;
  width: number;
  height: number;
  onClose: (notice?: string) => void;
}) {
  const [confirming, setConfirming] = useState<string | undefined>();
  const [message, setMessage] = useState('');
  const ids = runIds.join(',');
  const { value: runs } = useFetched(() => Promise.all(runIds.map((runId) => ops.runs.get({ runId }).catch(() => undefined))), ids, ids);
  const rows = runIds.map((runId, index) => ({ runId, run: runs?.[index] }));
  const visible = Math.max(1, height - 5);
  const { index: selected, first, move } = useSelection(rows.length, visible);
  const current = rows[selected];

  useKeys((input, key) => {
    if (confirming) {
      const runId = confirming;
      setConfirming(undefined);
      if (input !== 'y') return setMessage('Not cancelled.'), true;
      const elsewhere = runNodes[runId];
      if (elsewhere) return setMessage(`Run ${runId.slice(0, 8)} runs on node ${elsewhere}: cancel it in a console attached to that node.`), true;
      void ops.runs.cancel({ runId }).then(
        ({ cancelled }) => setMessage(cancelled ? `Cancelled run ${runId.slice(0, 8)}.` : `Run ${runId.slice(0, 8)} had already finished.`),
        (failure: unknown) => setMessage((failure as Error).message),
      );
      return true;
    }
    if (key.escape || input === 'q' || input === 'X') return onClose(), true;
    if (move(input, key)) return true;
    if (input === 'x' && current) return setConfirming(current.runId), true;
    return true;
  }, { layer: 'overlay', modal: true });

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text bold wrap="truncate">{fit(`Runs in flight (${rows.length}) · x cancel · j/k select · Esc close`, width - 4)}</Text>
      {rows.length === 0 ? <Text color={theme.dim}>No run is in flight.</Text> : null}
      {rows.slice(first, first + visible).map((row, index) => {
        const runNode = runNodes[row.runId] ?? node;
        const at = runNode ? ` @${runNode}` : '';
        const line = row.run ? `${clockTime(row.run.startedAtMs)} ${row.runId.slice(0, 8)} ${row.run.origin}${at} · ${row.run.prompt}` : `${row.runId.slice(0, 8)}${at} (starting)`;
        return <Text key={row.runId} inverse={first + index === selected} wrap="truncate">{fit(line, width - 4)}</Text>;
      })}
      <Text color={confirming ? theme.warn : theme.dim} wrap="truncate">
        {fit(confirming ? `Cancel run ${confirming.slice(0, 8)}? Its model call and tools are stopped; it is recorded as cancelled. y / any other key` : message, width - 4)}
      </Text>
    </Box>
  );
}
