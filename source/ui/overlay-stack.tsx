import { Box, Text, useWindowSize } from 'ink';
import { useState } from 'react';
import { LineInput as LineEditor } from './components/LineInput.js';
import { fit } from './format.js';
import type { ConfigIssue } from '../config/validate.js';
import type { McpCommands } from '../mcp/gateway-component.js';
import type { InstallLink } from '../operations/mcp-links.js';
import type { Operations } from '../operations/index.js';
import { ConfigProblems } from './components/ConfigProblems.js';
import { DeliveriesOverlay } from './components/DeliveriesOverlay.js';
import { MessagesOverlay } from './components/MessagesOverlay.js';
import { NodesOverlay } from './components/NodesOverlay.js';
import { RunsOverlay } from './components/RunsOverlay.js';
import type { Notice } from './hooks/useNotices.js';
import { Form } from './components/Form.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import { InstallConfirmation, type InstallDecision } from './components/InstallConfirmation.js';
import { LoginDialog } from './components/LoginDialog.js';
import { SubscriptionCard } from './components/SubscriptionCard.js';
import type { EditForm } from './forms/edit-form.js';
import type { FieldErrors } from '../operations/form-fields.js';
import { useKeys } from './input-router.js';
import type { PanePrompt } from './pane-hints.js';
import type { SubscribedView } from './slash-runner.js';
import { theme } from './theme.js';

/** One overlay over the panes. App keeps a stack of them: the last is on top and gets keys first. */
export type Overlay = { kind: 'help' } | { kind: 'command'; text: string } | { kind: 'filter'; pane: string; text: string } | { kind: 'quit' } | { kind: 'install'; link: InstallLink }
  | { kind: 'form'; form: EditForm; errors: FieldErrors; busy: boolean } | { kind: 'subscribed'; view: SubscribedView } | { kind: 'configProblems'; issues: ConfigIssue[]; reason: string } | { kind: 'login'; server: string } | { kind: 'deliveries' } | { kind: 'messages' } | { kind: 'runs' } | { kind: 'nodes' };
export type StackedOverlay = Overlay & { id: number };
type LineOverlay = Extract<StackedOverlay, { kind: 'command' | 'filter' | 'quit' }>;

/** Overlays drawn on the bottom line; every other one takes the whole pane area. */
const isLine = (entry: StackedOverlay): entry is LineOverlay => entry.kind === 'command' || entry.kind === 'filter' || entry.kind === 'quit';
export const isFull = (entry: StackedOverlay) => !isLine(entry);

/** What the overlays do to the console; each takes the id of the overlay it comes from. */
export interface OverlayActions {
  /** Takes the overlay off the stack (wherever it is now), with a notice when given. */
  close(id: number, notice?: string): void;
  /** Replaces the overlay's fields (the command line's text). */
  update(id: number, next: Overlay): void;
  install(id: number, link: InstallLink, decision: InstallDecision): void;
  saveForm(id: number, form: EditForm, values: Record<string, unknown>): void;
  /** Closes the overlay and opens config.json in $EDITOR again. */
  editConfigFile(id: number): void;
  /** The command line or a pane's filter was submitted. */
  submitLine(id: number, text: string): void;
  quit(): void;
  /** Command lines run before, oldest first (↑/↓ on the command line). */
  commandHistory: readonly string[];
  copy(text: string, what: string): void;
  secretOf(route: string): Promise<string>;
}

export interface OverlayContext {
  width: number;
  height: number;
  existingNames: readonly string[];
  login?: McpCommands['login'];
  openUrl: (url: string) => boolean;
  actions: OverlayActions;
  ops: Pick<Operations, 'deliveries' | 'runs' | 'gateway'>;
  /** The gateway's failed-delivery count: the deliveries overlay reads its list again when it moves. */
  failedDeliveries: number;
  /** The bottom line's notices so far (M). */
  notices: readonly Notice[];
  runsInFlight: readonly string[];
  /** Cluster mode: the node of each run of another node, and the node this console is attached to. */
  runNodes?: Readonly<Record<string, string>>;
  node?: string;
}

/**
 * The full-area overlays of the stack. Each stays mounted while another is over it (a form keeps
 * what was typed under help); only the topmost is drawn.
 */
export function FullOverlays({ stack, context }: { stack: readonly StackedOverlay[]; context: OverlayContext }) {
  const full = stack.filter(isFull);
  return full.map((entry) => (
    // Dialogs without a fixed height may shrink on a short terminal, as they did before they stacked.
    <Box key={entry.id} flexDirection="column" flexShrink={entry.kind === 'install' || entry.kind === 'login' ? 1 : 0} display={entry === full.at(-1) ? 'flex' : 'none'}>
      <FullOverlay entry={entry} context={context} />
    </Box>
  ));
}

function FullOverlay({ entry, context }: { entry: StackedOverlay; context: OverlayContext }) {
  const { width, height, actions } = context;
  switch (entry.kind) {
    case 'help': return <HelpLayer id={entry.id} width={width} height={height} actions={actions} />;
    case 'install': return <InstallConfirmation link={entry.link} existingNames={context.existingNames} onDecision={(decision) => actions.install(entry.id, entry.link, decision)} />;
    case 'form': return <Form key={entry.form.title} title={entry.form.title} fields={entry.form.fields} width={width} height={height} errors={entry.errors} busy={entry.busy} onSubmit={(values) => actions.saveForm(entry.id, entry.form, values)} onCancel={() => actions.close(entry.id, 'Edit cancelled; nothing was written.')} />;
    case 'subscribed': return <SubscriptionCard view={entry.view} width={width} secretOf={actions.secretOf} onCopy={actions.copy} onClose={(text) => actions.close(entry.id, text)} />;
    case 'login': return context.login ? <LoginDialog key={entry.server} server={entry.server} login={context.login} openUrl={context.openUrl} copy={actions.copy} width={width} onClose={(text) => actions.close(entry.id, text)} /> : null;
    case 'configProblems': return <ConfigProblemsLayer entry={entry} width={width} height={height} actions={actions} />;
    case 'deliveries': return <DeliveriesOverlay ops={context.ops} width={width} height={height} version={context.failedDeliveries} onClose={(text) => actions.close(entry.id, text)} />;
    case 'nodes': return <NodesOverlay ops={context.ops} width={width} height={height} onClose={() => actions.close(entry.id)} />;
    case 'runs': return <RunsOverlay ops={context.ops} runIds={context.runsInFlight} runNodes={context.runNodes} node={context.node} width={width} height={height} onClose={() => actions.close(entry.id)} />;
    case 'messages': return <MessagesOverlay notices={context.notices} width={width} height={height} onClose={() => actions.close(entry.id)} />;
    default: return null;
  }
}

/** The help: its view scrolls (a layer above this one), any other key closes it. */
function HelpLayer({ id, width, height, actions }: { id: number; width: number; height: number; actions: OverlayActions }) {
  useKeys(() => actions.close(id), { layer: 'overlay', modal: true });
  return <HelpOverlay width={width} height={height} />;
}

/** config.json came back invalid: Enter or E opens it again, any other key leaves it. */
function ConfigProblemsLayer({ entry, width, height, actions }: { entry: Extract<StackedOverlay, { kind: 'configProblems' }>; width: number; height: number; actions: OverlayActions }) {
  useKeys((input, key) => {
    if (key.return || input === 'E') return actions.editConfigFile(entry.id);
    actions.close(entry.id, 'config.json is left invalid; the previous config stays in effect, and a restart would refuse the file. E opens it again.');
  }, { layer: 'overlay', modal: true });
  return <ConfigProblems issues={entry.issues} reason={entry.reason} width={width} height={height} />;
}

/**
 * The bottom line: the topmost line overlay (command line, pane filter, quit prompt), else the
 * focused pane's prompt, else the notice. It spans the terminal; what is longer is cut with `~`
 * (`M` shows a notice whole). Ink's truncate only catches wide characters, which `fit` counts as one.
 */
export function BottomLine({ stack, notice, prompt, quitPrompt, actions }: { stack: readonly StackedOverlay[]; notice: string; prompt?: PanePrompt; quitPrompt: string; actions: OverlayActions }) {
  const { columns } = useWindowSize();
  const line = stack.filter(isLine).at(-1);
  if (line?.kind === 'quit') return <QuitLayer key={line.id} id={line.id} prompt={fit(quitPrompt, columns)} actions={actions} />;
  if (line) return <LineInput key={line.id} entry={line} actions={actions} />;
  if (prompt) return <Text color={prompt.color} wrap="truncate">{fit(prompt.text, columns)}</Text>;
  return <Text color={theme.dim} wrap="truncate">{fit(notice, columns)}</Text>;
}

/** y quits, and so does a second Ctrl-C (the first one opened this prompt); any other key stays. */
function QuitLayer({ id, prompt, actions }: { id: number; prompt: string; actions: OverlayActions }) {
  useKeys((input, key) => {
    if (input === 'y' || (key.ctrl && input === 'c')) actions.quit();
    else actions.close(id);
    return true;
  }, { layer: 'overlay' });
  return <Text color={theme.warn} wrap="truncate">{prompt}</Text>;
}

/** The command line or a pane's filter (applied as typed): typed text stays here (modal); Esc closes it. */
function LineInput({ entry, actions }: { entry: Extract<LineOverlay, { kind: 'command' | 'filter' }>; actions: OverlayActions }) {
  // How far back in the command history ↑ has gone (0: the line being typed, kept in `draft`).
  const [back, setBack] = useState(0);
  const [draft, setDraft] = useState(entry.text);
  const history = entry.kind === 'command' ? actions.commandHistory : [];
  const recall = (to: number) => {
    if (to < 0 || to > history.length) return;
    if (back === 0) setDraft(entry.text);
    setBack(to);
    actions.update(entry.id, { ...entry, text: to === 0 ? draft : history[history.length - to]! });
  };
  const { top } = useKeys((_input, key) => {
    if (key.escape) actions.close(entry.id);
    else if (key.upArrow) recall(back + 1);
    else if (key.downArrow) recall(back - 1);
  }, { layer: 'overlay', modal: true });
  return (
    <Box>
      <Text color={theme.accent}>{entry.kind === 'filter' ? `filter ${entry.pane} (word field:value !word): ` : ''}</Text>
      <LineEditor
        value={entry.text}
        focus={top}
        onChange={(text) => actions.update(entry.id, { ...entry, text })}
        onSubmit={(text) => actions.submitLine(entry.id, text)}
      />
    </Box>
  );
}
