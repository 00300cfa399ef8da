import { Box } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { Operations } from '../../operations/index.js';
import type { ConsoleState } from '../console-model.js';
import { ScrollText } from '../components/ScrollText.js';
import { ListView, type ListRow, type PaneFilter, type RowSource } from '../components/ListView.js';
import type { EditTarget } from '../forms/edit-target.js';
import { clockTime, column } from '../format.js';
import { useKeys } from '../input-router.js';
import type { PanePrompt } from '../pane-hints.js';
import { theme } from '../theme.js';
import type { WebhookRow } from '../../operations/webhook-rows.js';
import { outcomeLabel, outcomeStyle, reasonOf, runStyle, WebhookDetails } from './webhook-details.js';
import { newDraft, parsePayload, TEST_EDITOR_LINES, WebhookTestEditor, type TestDraft } from './webhook-test-editor.js';

/** What `field:value` can name in this pane's filter (outcome: accepted, 401, 429, ignored, duplicate...; run: delivered, failed...). */
const webhookFields = ['route', 'event', 'id', 'outcome', 'run', 'node'];

type Mode = { kind: 'none' } | { kind: 'copy'; route: string } | { kind: 'secret'; route: string } | { kind: 'test'; route: string };

/** Fixed columns of a delivery row: a long route, event or id is cut, never shifts the next column. */
const EVENT_WIDTH = 14;
const ID_WIDTH = 18;
const ROUTE_WIDTH = 20;

/**
 * Routes (top) and the last 500 webhook requests, newest first. Enter opens a delivery; r replays it;
 * t edits and sends a signed test request to the selected route (through the real intake); c copies
 * the delivery id, or a route's URL (or its secret, after a confirm: never drawn).
 */
export function WebhooksPane({ state, ops, height, width, focused, onNotice, onPrompt, onCopy, onEdit, ...filter }: PaneFilter & {
  state: ConsoleState; ops: Operations; height: number; width: number; focused: boolean;
  onNotice: (text: string) => void; onPrompt: (prompt: PanePrompt | undefined) => void;
  onCopy: (text: string, what: string, secretOf?: string) => void; onEdit: (target: EditTarget) => void;
}) {
  const [mode, setMode] = useState<Mode>({ kind: 'none' });
  /** Test requests being edited, by route: kept across Esc and refused sends. */
  const drafts = useRef(new Map<string, TestDraft>());
  const [, redraw] = useState(0);
  const { webhook } = state.snapshot;
  const routes = [...webhook.routes, ...webhook.subscriptions];
  const urlOf = (route: string) => webhook.url ? `${webhook.url}/webhooks/${encodeURIComponent(route)}` : `(listener not bound)/webhooks/${route}`;
  const routeWidth = Math.min(ROUTE_WIDTH, Math.max(5, ...routes.map((route) => route.length), ...state.webhooks.slice(0, 50).map((entry) => entry.route.length)));
  const routeRow = (route: string): ListRow => ({ key: `route:${route}`, text: '', fields: { route }, parts: [{ text: 'route ', dim: true }, { text: `${column(route, routeWidth)} ` }, { text: `${urlOf(route)}${webhook.subscriptions.includes(route) ? ' (subscription)' : ''}`, color: theme.accent }] });
  const deliveryRow = (row: WebhookRow): ListRow => ({
    key: row.key,
    item: row,
    text: '',
    fields: { route: row.route, event: row.event, id: row.deliveryId, outcome: outcomeLabel(row), run: row.runState ?? '', node: row.runNode ?? row.node ?? '' },
    parts: [
      { text: `${clockTime(row.atMs)} ${column(row.route, routeWidth)} ${column(row.event, EVENT_WIDTH)} ${column(row.deliveryId, ID_WIDTH)} ` },
      { text: outcomeLabel(row).padEnd(9), ...outcomeStyle(row) },
      { text: row.runState ? ` ${row.runState}` : '', ...runStyle(row) },
      // Cluster mode: the node that ran it (or answered the request).
      { text: row.runNode ?? row.node ? ` @${row.runNode ?? row.node}` : '', dim: true },
      // Why a request was refused or ignored (401, 429, duplicate, ignored event), else the delivery result.
      { text: row.delivery ? ` ${row.delivery.ok ? row.delivery.detail : row.delivery.reason}` : reasonOf(row) ? ` ${reasonOf(row)}` : '', dim: true },
    ],
  });
  // Built on demand: a ring of 500 costs only the rows on screen, at up to 30 renders a second.
  const rows: RowSource = {
    length: routes.length + state.webhooks.length,
    at: (index) => (index < routes.length ? routeRow(routes[index]!) : state.webhooks[index - routes.length] ? deliveryRow(state.webhooks[index - routes.length]!) : undefined),
    keyIndex: (key) => {
      if (key.startsWith('route:')) return routes.indexOf(key.slice(6));
      const at = state.webhooks.findIndex((entry) => entry.key === key);
      return at < 0 ? -1 : routes.length + at;
    },
  };
  // The row's own item when the ring has dropped it (a flood went by the selected delivery).
  const deliveryOf = (row: ListRow | undefined) => state.webhooks.find((entry) => entry.key === row?.key) ?? (row?.item as WebhookRow | undefined);
  const routeOf = (row: ListRow | undefined): string | undefined => row?.key.startsWith('route:') ? row.key.slice(6) : deliveryOf(row)?.route;

  // A prompt of the pane (copy, secret confirm) is a modal layer over its list: typed keys stay here.
  useKeys((input) => {
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
      // The secret goes to the clipboard, or without one to a 0600 file: never to the screen.
      const route = mode.route;
      void ops.webhooks.secret({ route }).then(({ secret }) => onCopy(secret, `the secret of route ${route}`, route), (error: unknown) => onNotice((error as Error).message));
    }
  }, { layer: 'pane', active: focused && (mode.kind === 'copy' || mode.kind === 'secret'), modal: true });
  // The prompt goes to the console's bottom line while this pane has the keys: it is wider than the pane.
  const question = mode.kind === 'copy' ? `Copy from route ${mode.route}: u the URL · s the secret · any other key cancels`
    : mode.kind === 'secret' ? `Copy the secret of route ${mode.route}? y / any other key cancels (no clipboard: a 0600 file, never shown)` : undefined;
  const questionColor = mode.kind === 'secret' ? theme.caution : theme.accent;
  useEffect(() => {
    if (!question || !focused) return undefined;
    onPrompt({ text: question, color: questionColor });
    return () => onPrompt(undefined);
  }, [question, questionColor, focused, onPrompt]);

  const setDraft = (draft: TestDraft) => {
    drafts.current.set(draft.route, draft);
    redraw((count) => count + 1);
  };
  const sendTest = (draft: TestDraft) => {
    const payload = parsePayload(draft.text);
    if (!payload.ok) return setDraft({ ...draft, error: payload.reason });
    setMode({ kind: 'none' });
    const { route, event } = draft;
    onNotice(`Sending a signed ${event} test webhook to ${route}...`);
    void ops.webhooks.test({ route, event: event.trim(), payload: payload.value }).then(
      (result) => onNotice(`Test to ${route}: HTTP ${result.status} ${statusWord(result.body)} (delivery ${result.deliveryId})`),
      (error: unknown) => onNotice(`Test not sent: ${(error as Error).message}`));
  };

  const draft = mode.kind === 'test' ? drafts.current.get(mode.route) ?? newDraft(mode.route) : undefined;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <ListView
        rows={rows} height={height} width={width} focused={focused && mode.kind === 'none'} scopes={['webhooks']}
        title="Routes and requests, newest first" followable {...filter} fields={webhookFields}
        inline={draft ? { lines: TEST_EDITOR_LINES, node: <WebhookTestEditor draft={draft} width={width} focused={focused} onChange={setDraft} onSend={sendTest} onClose={() => setMode({ kind: 'none' })} /> } : undefined}
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
            return setMode({ kind: 'test', route });
          }
          if (command === 'item.copy') {
            if (delivery) {
              // A request refused before its id was read (404, 415...) has none.
              if (!delivery.deliveryId || delivery.deliveryId === '-') return onNotice('This request carried no delivery id: nothing to copy.');
              return onCopy(delivery.deliveryId, 'the delivery id');
            }
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
          if (!delivery) return <ScrollText lines={[{ text: `Route ${routeOf(row)}`, bold: true }, { text: urlOf(routeOf(row) ?? ''), color: theme.accent }]} height={height} width={width} focused={focused} hint="Esc back · t test · c copy URL or secret · e edit" />;
          return <WebhookDetails row={delivery} ops={ops} height={height} width={width} focused={focused} />;
        }}
      />
    </Box>
  );
}

function statusWord(body: unknown): string {
  if (body && typeof body === 'object' && 'status' in body) return String((body as { status: unknown }).status);
  return typeof body === 'string' ? body.slice(0, 60) : '';
}
