import type { Operations } from '../../operations/index.js';
import type { OutputDeliveryView } from '../../operations/deliveries.js';
import type { DeliveryRecord } from '../../store/webhook-deliveries.js';
import { useFetched } from '../hooks/useFetched.js';
import { ScrollText, type TextLine } from '../components/ScrollText.js';
import { clockTime } from '../format.js';
import { theme } from '../theme.js';
import type { WebhookRow } from '../../operations/webhook-rows.js';

/** Enter on a delivery: the request, the rendered prompt, the run's output and every delivery attempt, from the store, all of it (scrolls). */
export function WebhookDetails({ row, ops, height, width, focused }: { row: WebhookRow; ops: Operations; height: number; width: number; focused: boolean }) {
  const queued = row.outcome === 'accepted' || row.outcome === 'replay';
  // Read again as the row's run and delivery move on.
  const fetched = useFetched(async (): Promise<{ record?: DeliveryRecord; attempts: OutputDeliveryView[] }> => {
    if (!queued) return { attempts: [] };
    const [record, deliveries] = await Promise.all([ops.webhooks.delivery({ deliveryId: row.deliveryId }).catch(() => undefined), ops.deliveries.list({ limit: 500 })]);
    return { record, attempts: deliveries.filter((delivery) => delivery.subject.kind === 'webhook' && delivery.subject.deliveryId === row.deliveryId) };
  }, row.key, [row.runState, row.delivery ? 1 : 0].join());
  const record = fetched.value?.record;
  const lines: TextLine[] = [{ text: `${row.route} ${row.event} ${row.deliveryId}: ${describeOutcome(row)}`, bold: true }];
  if (row.node || row.runNode) lines.push({ text: `Node: ${[row.node ? `answered by ${row.node}` : '', row.runNode ? `run by ${row.runNode}` : ''].filter(Boolean).join(' · ')}`, dim: true });
  const why = reasonOf(row);
  if (why) lines.push({ text: `Why: ${why}`, color: theme.warn });
  if (!record) {
    lines.push({ text: queued ? (fetched.value || fetched.error ? 'Not in the store (yet).' : 'Reading...') : 'Refused or ignored: nothing was queued, so there is no prompt or run.', dim: true });
  } else {
    lines.push({ text: `State ${record.state}${record.replayOf ? ` · replay of ${record.replayOf}` : ''} · deliver to ${record.target}${record.runId ? ` · run ${record.runId.slice(0, 8)} ${record.runStatus ?? ''}` : ''}`, dim: true });
    lines.push({ text: 'Prompt:', bold: true }, ...indented(record.prompt));
    if (record.output !== null || record.error !== null) lines.push({ text: 'Output:', bold: true }, ...indented(record.error ? `${record.error}\n${record.output ?? ''}` : record.output ?? ''));
    const attempts = fetched.value?.attempts ?? [];
    if (attempts.length === 0 && record.deliveryDetail) lines.push({ text: `Delivery: ${record.deliveryDetail}`, color: record.state === 'delivered' ? theme.ok : record.state === 'silent' ? theme.dim : theme.error });
    for (const delivery of attempts) {
      lines.push({ text: `Delivery to ${delivery.target}: ${delivery.status}${delivery.detail ? ` - ${delivery.detail}` : ''}${delivery.error ? ` - ${delivery.error}` : ''}`, color: delivery.status === 'delivered' ? theme.ok : delivery.status === 'failed' ? theme.error : undefined });
      for (const attempt of delivery.attempts) {
        lines.push({ text: `  ${clockTime(attempt.atMs)} chunk ${attempt.chunk + 1} attempt ${attempt.attempt} ${attempt.ok ? 'ok' : `failed${attempt.error ? `: ${attempt.error}` : ''}`}`, dim: attempt.ok });
      }
    }
  }
  return <ScrollText lines={lines} height={height} width={width} focused={focused} hint="Esc back · r replay · t test · c copy id" />;
}

/** A text's lines, indented under their heading. */
function indented(value: string): TextLine[] {
  return value.split('\n').map((line) => ({ text: `  ${line}` }));
}

/** `accepted`, `401`, `429`... then the run state and delivery result as they are known. */
export function describeOutcome(row: WebhookRow): string {
  const parts = [outcomeLabel(row)];
  if (row.runState) parts.push(row.runState === 'running' ? 'running' : `${row.runState}${row.runStatus ? ` (run ${row.runStatus})` : ''}`);
  if (row.delivery) parts.push(row.delivery.ok ? row.delivery.detail : row.delivery.reason);
  return parts.join(' · ');
}

/**
 * Why a request was not run: the intake's reason (401, 429, 4xx), or what an ignored or duplicate
 * outcome means (the intake records no text for those two).
 */
export function reasonOf(row: WebhookRow): string | undefined {
  if (row.reason) return row.reason;
  if (row.outcome === 'ignored') return row.event === 'ping' ? 'GitHub\'s ping is ignored unless the route lists it in its events' : `event "${row.event}" is not in the route's events`;
  if (row.outcome === 'duplicate') return `delivery ${row.deliveryId} was accepted before: not run again (r on that row replays it)`;
  return undefined;
}

export function outcomeLabel(row: WebhookRow): string {
  switch (row.outcome) {
    case 'accepted':
    case 'ignored':
    case 'duplicate':
    case 'replay':
      return row.outcome;
    default:
      return String(row.status);
  }
}

export function outcomeStyle(row: WebhookRow): { color?: string; dim?: boolean } {
  if (row.outcome === 'accepted' || row.outcome === 'replay') return { color: theme.ok };
  if (row.outcome === 'ignored') return { dim: true };
  if (row.outcome === 'duplicate') return {};
  if (row.status === 401 || row.status >= 500) return { color: theme.error };
  return { color: theme.warn };
}

export function runStyle(row: WebhookRow): { color?: string } {
  if (row.runState === 'delivered') return { color: theme.ok };
  if (row.runState === 'failed' || row.runState === 'delivery_failed') return { color: theme.error };
  return {};
}
