import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { clusterSummary, configWarning, nodeNotes, nodeTableLines } from '../../operations/cluster-view.js';
import type { Operations } from '../../operations/index.js';
import { CUT_MARK, fit } from '../format.js';
import { useFetched } from '../hooks/useFetched.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

/** A table line cut to the width with its spacing kept (`fit` would fold the columns' padding). */
const cut = (line: string, width: number) => (line.length > width ? `${line.slice(0, Math.max(0, width - 1))}${CUT_MARK}` : line);

/** How often the open overlay reads the nodes again: about a heartbeat. */
const REFRESH_MS = 2_000;

/**
 * `/nodes`: the gateways of the cluster this console's gateway belongs to, with their state,
 * config hash, runs in flight and last heartbeat (a down node in red, a late one in yellow), and who
 * took over a down node's work, read again every 2 s while open. On SQLite (one
 * gateway) it says there is no cluster and how to make one.
 */
export function NodesOverlay({ ops, width, height, onClose }: {
  ops: Pick<Operations, 'gateway'>;
  width: number;
  height: number;
  onClose: () => void;
}) {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const { value, error } = useFetched(() => ops.gateway.nodes({}), 'nodes', tick);
  useKeys((input, key) => {
    if (key.escape || input === 'q') onClose();
    return true;
  }, { layer: 'overlay', modal: true });

  const warning = value ? configWarning(value.nodes) : undefined;
  const notes = value ? nodeNotes(value) : [];
  // Row i + 1 of the table is node i (the header comes first).
  const colorOf = (index: number) => {
    const node = value?.nodes[index - 1];
    return node?.state === 'down' ? theme.error : node?.late ? theme.warn : undefined;
  };
  const lines = error ? [`Could not read the nodes: ${error}`]
    : value === undefined ? ['Reading the nodes...']
      : value === null ? ['This gateway runs on SQLite: no cluster. Several gateways share one PostgreSQL with store.url (README: Scale out).']
        : nodeTableLines(value, Date.now());
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text bold wrap="truncate">{fit(`Nodes${value ? ` · ${clusterSummary(value)} · * this one` : ''} · Esc close`, width - 4)}</Text>
      {lines.slice(0, Math.max(1, height - 4)).map((line, index) => (
        <Text key={index} bold={value !== null && value !== undefined && index === 0} color={colorOf(index)} wrap="truncate">{cut(line, width - 4)}</Text>
      ))}
      {notes.map((note) => <Text key={note} wrap="truncate">{fit(note, width - 4)}</Text>)}
      {warning ? <Text color={theme.warn} wrap="truncate">{fit(`warning: ${warning}`, width - 4)}</Text> : null}
    </Box>
  );
}
