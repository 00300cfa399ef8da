import { Box, Text } from 'ink';
import { useState } from 'react';
import type { Operations } from '../../operations/index.js';
import type { OutputDeliveryView } from '../../operations/deliveries.js';
import { clockTime, fit } from '../format.js';
import { useFetched } from '../hooks/useFetched.js';
import { useSelection } from '../hooks/useSelection.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';

/**
 * Deliveries that did not arrive (`failed`) or may have (`uncertain`: the gateway stopped while it was
 * being sent), newest first: `r` sends the selected one again through `deliveries.retry`. An uncertain
 * one asks first, since its message may already be in the chat or on the PR.
 */
export function DeliveriesOverlay({ ops, width, height, version, onClose }: {
  ops: Pick<Operations, 'deliveries'>;
  width: number;
  height: number;
  /** Moves when the gateway's failed-delivery count changes: the list is read again. */
  version: number;
  onClose: (notice?: string) => void;
}) {
  const [confirming, setConfirming] = useState<OutputDeliveryView | undefined>();
  const [message, setMessage] = useState('');
  const [reads, setReads] = useState(0);
  const { value: rows, error } = useFetched(() => ops.deliveries.list({ failed: true, limit: 100 }), 'failed', `${version}-${reads}`);
  const list = rows ?? [];
  const visible = Math.max(1, height - 5);
  const { index: selected, first, move } = useSelection(list.length, visible);
  const current = list[selected];

  const retry = (row: OutputDeliveryView) => {
    setMessage(`Sending ${row.id.slice(0, 8)} to ${row.target} again...`);
    void ops.deliveries.retry({ id: row.id }).then(
      (result) => setMessage('busy' in result ? `Not sent: ${result.reason}` : result.ok ? `Delivered ${row.id.slice(0, 8)}: ${result.detail}` : `Still failing: ${result.reason}`),
      (failure: unknown) => setMessage((failure as Error).message),
    ).finally(() => setReads((n) => n + 1));
  };

  useKeys((input, key) => {
    if (confirming) {
      if (input === 'y') retry(confirming);
      else setMessage('Not sent again.');
      setConfirming(undefined);
      return true;
    }
    if (key.escape || input === 'q' || input === 'D') return onClose(), true;
    if (move(input, key)) return true;
    if (input === 'r' && current) {
      if (current.status === 'uncertain') setConfirming(current);
      else retry(current);
      return true;
    }
    return true; // a modal list: other keys do nothing here
  }, { layer: 'overlay', modal: true });

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={theme.warn} paddingX={1}>
      <Text bold wrap="truncate">{fit(`Failed and uncertain deliveries (${list.length}) · r send again · j/k select · Esc close`, width - 4)}</Text>
      {error ? <Text color={theme.error}>{error}</Text> : null}
      {rows && list.length === 0 ? <Text color={theme.dim}>No failed or uncertain deliveries.</Text> : null}
      {list.slice(first, first + visible).map((row, index) => {
        const chosen = first + index === selected;
        const status = row.status === 'uncertain' ? 'uncertain' : 'failed   ';
        const line = `${clockTime(row.updatedAtMs)} ${status} ${row.id.slice(0, 8)} ${row.target} · ${row.title} · ${row.error ?? row.detail ?? ''}`;
        return <Text key={row.id} inverse={chosen} color={row.status === 'uncertain' ? theme.warn : theme.error} wrap="truncate">{fit(line, width - 4)}</Text>;
      })}
      <Text color={confirming ? theme.warn : theme.dim} wrap="truncate">
        {fit(confirming ? `${confirming.target}: the gateway stopped while this was being sent; it may have arrived. Send it again? y / any other key` : message, width - 4)}
      </Text>
    </Box>
  );
}
