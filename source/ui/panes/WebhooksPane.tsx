import { Box, Text } from 'ink';
import { LineInput } from '../components/LineInput.js';
import { useState } from 'react';
import type { Operations } from '../../operations/index.js';
import type { ConsoleState } from '../console-model.js';
import { ListView, type ListRow, type RowSource } from '../components/ListView.js';
import type { EditTarget } from '../forms/edit-target.js';
import { clockTime, CUT_MARK, fit } from '../format.js';
import { useKeys } from '../input-router.js';
import { theme } from '../theme.js';
import type { WebhookRow } from '../../operations/webhook-rows.js';
import { outcomeLabel, outcomeStyle, runStyle, WebhookDetails } from './webhook-details.js';

type Mode = { kind: 'none' } | { kind: 'copy'; route: string } | { kind: 'secret'; route: string } | { kind: 'test'; route: string; text: string };

export const SAMPLE_TEST_PAYLOAD = '{"test": true, "message": "Test delivery from the switchboard console"}';

/**
 * Routes (top) and the last 500 webhook requests, newest first. Enter opens a delivery; r replays it;
 * t sends a signed test request to the selected route (through the real intake); c copies the
 * delivery id, or a route's URL (or its secret, after a confirm).
 */
export function WebhooksPane({ state, ops, height, width, focused, onNotice, onCopy, onEdit }: {
  state: ConsoleState; ops: Operations; height: number; width: number; focused: boolean;
  onNotice: (text: string) => void; onCopy: (text: string, what: string) => void; onEdit: (target: EditTarget) => void;
}) {
  const [mode, setMode] = useState<Mode>({ kind: 'none' });
  const { webhook } = state.snapshot;
  const routes = [...webhook.routes, ...webhook.subscriptions];
  const urlOf = (route: string) => webhook.url ? `${webhook.url}/webhooks/${encodeURIComponent(route)}` : `(listener not bound)/webhooks/${route}`;
  const routeWidth = Math.min(20, Math.max(5, ...routes.map((route) => route.length), ...state.webhooks.slice(0, 50).map((entry) => entry.route.length)));
  const routeRow = (route: string): ListRow => ({ key: `route:${route}`, text: '', parts: [{ text: 'route ', dim: true }, { text: `${route.padEnd(routeWidth)} ` }, { text: `${urlOf(route)}${webhook.subscriptions.includes(route) ? ' (subscription)' : ''}`, color: theme.accent }] });
  const deliveryRow = (row: WebhookRow): ListRow => ({
    key: row.key,
    text: '',
    parts: [
      { text: `${clockTime(row.atMs)} ${row.route.padEnd(routeWidth)} ${row.event.padEnd(14)} ${short(row.deliveryId, 18).padEnd(18)} ` },
      { text: outcomeLabel(row).padEnd(9), ...outcomeStyle(row) },
      { text: row.runState ? ` ${row.runState}` : '', ...runStyle(row) },
      { text: row.delivery ? ` ${row.delivery.ok ? row.delivery.detail : row.delivery.reason}` : '', dim: true },
    ],
  });
  // Built on demand: a ring of 500 costs only the rows on screen, at up to 30 renders a second.
  const rows: RowSource = {
    length: routes.length + state.webhooks.length,
    at: (index) => (index < routes.length ? routeRow(routes[index]!) : state.webhooks[index - routes.length] ? deliveryRow(state.webhooks[index - routes.length]!) : undefined),
  };
  const routeOf = (row: ListRow | undefined): string | undefined => row?.key.startsWith('route:') ? row.key.slice(6) : state.webhooks.find((entry) => entry.key === row?.key)?.route;
  const deliveryOf = (row: ListRow | undefined) => state.webhooks.find((entry) => entry.key === row?.key);

  // A prompt of the pane (test payload, copy, secret confirm) is a modal layer over its list: typed keys stay here.
  const { top } = useKeys((input, key) => {
    if (mode.kind === 'test') {
      if (key.escape) setMode({ kind: 'none' });
      return;
    }
    if (mode.kind === 'copy') {
      setMode({ kind: 'none' });
      if (input === 'u') onCopy(urlOf(mode.route), `the URL of route ${mode.route}`);
      else if (input === 's') setMode({ kind: 'secret', route: mode.route });
      else onNotice('Nothing copied.');
      return;
    }
    if (mode.kind === 'secret') {
      setMode({ kind: 'none' });
      if (input !== 'y') return onNotice('Secret not copied.');
      // The secret goes to the clipboard only; the notice never shows it.
      const route = mode.route;
      void ops.webhooks.secret({ route }).then(({ secret }) => onCopy(secret, `the secret of route ${route}`), (error: unknown) => onNotice((error as Error).message));
    }
  }, { layer: 'pane', active: focused && mode.kind !== 'none', modal: true });

  const sendTest = (route: string, text: string) => {
    let payload: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      payload = parsed as Record<string, unknown>;
    } catch (error) {
      return onNotice(`Test not sent: the payload must be a JSON object (${(error as Error).message}).`);
    }
    onNotice(`Sending a signed test webhook to ${route}...`);
    void ops.webhooks.test({ route, event: 'test', payload }).then(
      (result) => onNotice(`Test to ${route}: HTTP ${result.status} ${statusWord(result.body)} (delivery ${result.deliveryId})`),
      (error: unknown) => onNotice(`Test not sent: ${(error as Error).message}`));
  };

  const listHeight = mode.kind === 'none' ? height : Math.max(1, height - 1);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <ListView
        rows={rows} height={listHeight} width={width} focused={focused && mode.kind === 'none'} scopes={['webhooks']}
        empty={webhook.enabled ? 'No routes and no requests yet.' : 'Webhooks are off: switchboard config set platforms.webhook.enabled true, then restart.'}
        onCommand={(command, row) => {
          const route = routeOf(row);
          const delivery = deliveryOf(row);
          if (command === 'delivery.replay') {
            if (!delivery || (delivery.outcome !== 'accepted' && delivery.outcome !== 'replay')) return onNotice('Select an accepted delivery to replay (refused requests were never queued).');
            onNotice(`Replaying ${delivery.deliveryId}...`);
            return void ops.webhooks.replay({ deliveryId: delivery.deliveryId }).then(
              (replay) => onNotice(`Replay queued as ${replay.deliveryId}.`), (error: unknown) => onNotice((error as Error).message));
          }
          if (command === 'webhook.test') {
            if (!route) return onNotice('Select a route or a delivery first.');
            return setMode({ kind: 'test', route, text: SAMPLE_TEST_PAYLOAD });
          }
          if (command === 'item.copy') {
            if (delivery) return onCopy(delivery.deliveryId, 'the delivery id');
            if (route) return setMode({ kind: 'copy', route });
          }
          if (command === 'item.edit') {
            if (!route) return onNotice('Select a route or a delivery first.');
            // A static route of the same name wins over a subscription (the intake serves it).
            return onEdit({ kind: webhook.routes.includes(route) ? 'route' : 'subscription', name: route });
          }
        }}
        details={(row) => {
          const delivery = deliveryOf(row);
          if (!delivery) return <Text>{fit(`Route ${routeOf(row)}: ${urlOf(routeOf(row) ?? '')} · t test · c copy URL or secret · e edit`, width)}</Text>;
          return <WebhookDetails row={delivery} ops={ops} height={height} width={width} />;
        }}
      />
      {mode.kind === 'copy' ? <Text color={theme.accent}>{fit(`Copy from route ${mode.route}: u the URL · s the secret · any other key cancels`, width)}</Text> : null}
      {mode.kind === 'secret' ? <Text color={theme.caution}>{fit(`Copy the secret of route ${mode.route} to the clipboard? y / any other key cancels`, width)}</Text> : null}
      {mode.kind === 'test' ? (
        <Box>
          <Text color={theme.accent}>{`test ${mode.route}: `}</Text>
          <LineInput
            value={mode.text}
            focus={top}
            onChange={(text) => setMode({ ...mode, text })}
            onSubmit={(text) => {
              setMode({ kind: 'none' });
              sendTest(mode.route, text);
            }}
          />
        </Box>
      ) : null}
    </Box>
  );
}

/** Delivery ids can be long (`test-<uuid>`): the list shows the start, details and `c` the whole id. */
function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}${CUT_MARK}` : text;
}

function statusWord(body: unknown): string {
  if (body && typeof body === 'object' && 'status' in body) return String((body as { status: unknown }).status);
  return typeof body === 'string' ? body.slice(0, 60) : '';
}
