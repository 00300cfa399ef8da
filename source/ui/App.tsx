import { Box, Text, useApp, useWindowSize, type DOMElement } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { McpServerConfig } from '../config/types.js';
import type { McpCommands } from '../mcp/gateway-component.js';
import { parseInstallLink, type InstallLink } from '../operations/mcp-links.js';
import type { GatewayLink } from '../operations/link.js';
import type { EditorResult } from '../infra/editor.js';
import type { InstallDecision } from './components/InstallConfirmation.js';
import { ElicitationDialog, type ElicitationChoice } from './components/ElicitationDialog.js';
import { issuesOf } from './forms/config-entry-form.js';
import { describeApplied, type EditForm } from './forms/edit-form.js';
import { editFormFor, type EditTarget } from './forms/edit-target.js';
import { ApprovalDialog, approvalDialogHeight, KEY_GUARD_MS, type ApprovalChoice } from './components/ApprovalDialog.js';
import { Header, headerHeight } from './components/Header.js';
import type { ConsoleModel, ConsoleState } from './console-model.js';
import { useConsoleState } from './hooks/useConsoleState.js';
import { useNow } from './hooks/useNow.js';
import { useClickRegion } from './hooks/useClickRegion.js';
import { useNotices } from './hooks/useNotices.js';
import { NOTICE_SHOWN_MS, paneHint, type PanePrompt } from './pane-hints.js';
import { InputRouter, useKeys } from './input-router.js';
import { commandFor, type CommandName } from './keymap.js';
import { BottomLine, FullOverlays, isFull, type Overlay, type OverlayActions, type StackedOverlay } from './overlay-stack.js';
import { ApprovalsPane } from './panes/ApprovalsPane.js';
import { JobsPane } from './panes/JobsPane.js';
import { LogsPane } from './panes/LogsPane.js';
import { McpPane } from './panes/McpPane.js';
import { OutputPane } from './panes/OutputPane.js';
import { WebhooksPane } from './panes/WebhooksPane.js';
import { parseSlash, slashCommands } from './slash-commands.js';
import { runCoreSlash } from './slash-runner.js';
import { theme } from './theme.js';

export interface AppProps {
  model: ConsoleModel;
  /** The gateway: in this process, or attached over its control channel. */
  link: GatewayLink;
  /**
   * What only a gateway in this process offers: the OAuth login dialog (it needs this machine's
   * browser and callback port) and pausing the config watch while `E` has the editor open.
   */
  local?: { login: McpCommands['login']; whileEditing<T>(work: () => Promise<T>): Promise<T> };
  copy: (text: string) => Promise<boolean>;
  /** Opens a browser on a URL when this machine has a display (OAuth login); says whether it did. */
  openUrl: (url: string) => boolean;
  /** Opens $EDITOR on a file (the terminal is suspended around it). */
  openEditor: (file: string) => Promise<EditorResult>;
  onQuit: () => void;
  /** The first notice of the bottom line, instead of the key hint (the first run's config.json). */
  firstNotice?: string;
}

const panes = ['MCP', 'Webhooks', 'Jobs', 'Approvals', 'Logs', 'Output'] as const;
/** Tab titles: long ones where they fit (wide terminals), short ones down to 80 columns. */
const titles: Record<(typeof panes)[number], [string, string]> = {
  MCP: ['MCP servers', 'MCP'], Webhooks: ['Webhook deliveries', 'Webhooks'], Jobs: ['Jobs', 'Jobs'], Approvals: ['Approvals', 'Approvals'], Logs: ['Logs', 'Logs'], Output: ['Output', 'Output'],
};
/** approvalDialogHeight() less the argument lines, at most: border, title, origin, tool, annotations, margins, "more", keys. */
const approvalDialogHeightWithoutArgs = 10;
type PaneName = (typeof panes)[number];

/** The operator console: header, panes, the overlay stack and the approval dialog over them, one input router. */
export function App(props: AppProps) {
  return <InputRouter><Console {...props} /></InputRouter>;
}

function Console({ model, link, local, copy, openUrl, openEditor, onQuit, firstNotice }: AppProps) {
  const ops = link.operations;
  const { suspendTerminal } = useApp();
  const state = useConsoleState(model);
  const now = useNow(1000);
  const { columns, rows } = useWindowSize();
  const [active, setActive] = useState<PaneName>('Logs');
  /** Overlays over the panes, the last on top: it gets keys first, Esc (or its own keys) closes it. */
  const [stack, setStack] = useState<StackedOverlay[]>([]);
  const lastId = useRef(0);
  const { notice, notices, setNotice } = useNotices(firstNotice ?? 'Press ? for keys, / for commands.');
  /** The focused pane's question waiting for its key (copy a secret?), shown on the bottom line. */
  const [panePrompt, setPanePrompt] = useState<PanePrompt>();
  /** The command lines run in this console, oldest first: ↑ and ↓ on the command line recall them. */
  const [commandHistory, setCommandHistory] = useState<readonly string[]>([]);
  /** Each pane's filter (F), kept while other panes are shown. */
  const [filters, setFilters] = useState<Partial<Record<PaneName, string>>>({});

  /** Requests put off with Esc: still pending (the Approvals pane lists them), no dialog until `A`. */
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  /** When the last decision was made here: the dialog that follows it ignores keys for a moment. */
  const decidedAt = useRef(0);
  const head = state.approvals.find((request) => !dismissed.has(request.id));
  // The approval queue waits under every overlay: its dialog shows when the stack is empty.
  const dialogOpen = head !== undefined && stack.length === 0;
  const elicitation = dialogOpen && head?.form ? { ...head, form: head.form } : undefined;
  const paneHidden = stack.some(isFull) || elicitation !== undefined;
  const width = Math.max(40, columns);
  const wide = width >= 120;

  const push = (overlay: Overlay) => {
    const id = ++lastId.current;
    setStack((list) => [...list, { ...overlay, id }]);
  };
  const close = (id: number, text?: string) => {
    setStack((list) => list.filter((entry) => entry.id !== id));
    if (text) setNotice(text);
  };
  const update = (id: number, next: Overlay) => setStack((list) => list.map((entry) => (entry.id === id ? { ...next, id } : entry)));

  /** Secrets handed out for a copy, by value: whatever the caller, a secret is never drawn. */
  const secrets = useRef(new Map<string, string>());
  const copyThing = (text: string, what: string, secretOf?: string) => {
    const route = secretOf ?? secrets.current.get(text);
    void copy(text).then((ok) => {
      if (ok) return setNotice(`Copied ${what} to the clipboard.`);
      if (route === undefined) return setNotice(`No clipboard here; ${what}: ${text.slice(0, width - 20)}`);
      // No clipboard and a secret: a 0600 file where the gateway runs, and only its path on screen.
      setNotice(`No clipboard here; writing ${what} to a file (it is never shown)...`);
      void ops.webhooks.writeSecret({ route }).then(
        ({ path }) => setNotice(`No clipboard here: wrote ${what} to ${path} (mode 0600${link.remote ? ', on the gateway\'s machine' : ''}).`),
        (error: unknown) => setNotice(`Secret not written: ${(error as Error).message}`));
    });
  };

  const runSlash = (line: string) => {
    const parsed = parseSlash(line);
    if (!parsed) return setNotice('Commands start with /; /help lists them.');
    if (parsed.name === 'help') return push({ kind: 'help' });
    if (parsed.name === 'nodes') return push({ kind: 'nodes' });
    if (parsed.name === 'run') {
      if (!parsed.rest) return setNotice('Usage: /run <prompt>');
      setNotice(`Running: ${parsed.rest}`);
      void ops.runs.run({ prompt: parsed.rest, origin: 'console' }).then(
        (result) => setNotice(`Run ${result.status}; see the Output pane (6).`),
        (error: unknown) => setNotice(`Run not started: ${(error as Error).message}`));
      return;
    }
    if (parsed.name === 'install') {
      const link = parseInstallLink(parsed.rest);
      if (!link.ok) return setNotice(`Install link rejected (${link.error.kind}): ${link.error.message}`);
      return push({ kind: 'install', link: link.value });
    }
    const reply = runCoreSlash(ops, parsed.name, parsed.rest, Date.now());
    if (reply) {
      setNotice(reply.now);
      void reply.later?.then(setNotice);
      void reply.subscribed?.then((view) => { if (view) push({ kind: 'subscribed', view }); });
      return;
    }
    setNotice(`Unknown command /${parsed.name}. Known: ${slashCommands.map((command) => `/${command.name}`).join(', ')}`);
  };

  const install = (id: number, link: InstallLink, decision: InstallDecision) => {
    close(id);
    if (decision.action === 'cancel') return setNotice('Install cancelled; nothing was written.');
    setNotice(`Installing MCP server "${decision.name}"...`);
    void ops.mcp.add({ name: decision.name, entry: link.config as McpServerConfig, by: 'console' }).then(
      () => setNotice(`Installed MCP server "${decision.name}"; connecting it.`),
      (error: unknown) => setNotice(`Not installed: ${(error as Error).message}${issuesText(error)}`));
  };

  const decide = (choice: ApprovalChoice) => {
    if (!head) return;
    const request = head;
    decidedAt.current = Date.now();
    const decided = choice.decision === 'approveSession'
      ? ops.approvals.approveForSession({ id: request.id, by: 'console' }).then(({ released }) => `Approved ${request.tool} for the session${released > 0 ? `; ${released} queued request(s) of it released too` : ''}.`)
      : ops.approvals.decide({ id: request.id, decision: choice.decision === 'approve' ? 'approve' : 'deny', by: 'console', ...(choice.decision === 'deny' && choice.reason ? { reason: choice.reason } : {}) })
        .then(() => `${choice.decision === 'deny' ? 'Denied' : 'Approved'} ${request.tool} for ${request.origin}.`);
    void decided.then(setNotice, (error: unknown) => setNotice((error as Error).message));
  };

  const answer = (choice: ElicitationChoice) => {
    if (!head) return;
    const request = head;
    decidedAt.current = Date.now();
    void ops.approvals.answer(choice.decision === 'answer' ? { id: request.id, values: choice.values, by: 'console' } : { id: request.id, decline: true, by: 'console' }).then(
      () => setNotice(`${choice.decision === 'answer' ? 'Sent the answer' : 'Declined the request'} of ${request.server ?? request.origin}.`),
      (error: unknown) => setNotice((error as Error).message));
  };

  const edit = (target: EditTarget) => {
    void editFormFor(ops, target).then((form) => ('error' in form ? setNotice(form.error) : push({ kind: 'form', form, errors: {}, busy: false })));
  };

  const saveForm = (id: number, form: EditForm, values: Record<string, unknown>) => {
    update(id, { kind: 'form', form, errors: {}, busy: true });
    void form.save(values).then(
      (outcome) => (outcome.ok ? close(id, outcome.notice) : update(id, { kind: 'form', form, errors: outcome.errors, busy: false })),
      (error: unknown) => update(id, { kind: 'form', form, errors: { '': `Not saved: ${(error as Error).message}` }, busy: false }),
    );
  };

  /** E: the terminal goes to $EDITOR; on return the file is checked and what changed is applied (an invalid file changes nothing). */
  const editConfigFile = async (from?: number) => {
    if (from !== undefined) close(from);
    if (link.remote) return setNotice('E edits config.json where the gateway runs: not from a console attached over TCP (edit it there, or use the e forms).');
    const { file } = await ops.config.path({});
    let ran: EditorResult = { ok: false, reason: 'the editor did not start' };
    const editing = () => suspendTerminal(async () => { ran = await openEditor(file); });
    await (local ? local.whileEditing(editing) : editing());
    if (!ran.ok) return setNotice(`config.json not reloaded: ${ran.reason}.`);
    try {
      setNotice(describeApplied('config.json', await ops.config.reload({ by: 'console' })));
    } catch (error) {
      push({ kind: 'configProblems', issues: issuesOf(error), reason: (error as Error).message });
    }
  };

  /** The request last put off here, while its notice is on the bottom line. */
  const putOff = useRef<{ id: string; text: string } | undefined>(undefined);
  const dismiss = () => {
    if (!head) return;
    setDismissed((before) => new Set([...before, head.id]));
    const text = `Put off: ${head.tool} for ${head.origin} stays pending (Approvals pane, 4); A opens it again.`;
    putOff.current = { id: head.id, text };
    setNotice(text);
  };
  // Decided meanwhile (another console, the CLI, its timeout): "stays pending" would be stale.
  useEffect(() => {
    const current = putOff.current;
    if (!current || state.approvals.some((request) => request.id === current.id)) return;
    putOff.current = undefined;
    const record = state.approvalHistory.find((decided) => decided.id === current.id);
    if (record && notice.text === current.text) setNotice(`${record.tool} for ${record.origin}, put off here, is ${record.status} now${record.decidedBy ? ` (by ${record.decidedBy})` : ''}.`);
  }, [state.approvals, state.approvalHistory, notice.text, setNotice]);
  const reopenApprovals = () => {
    const waiting = state.approvals.filter((request) => dismissed.has(request.id)).length;
    setDismissed(new Set());
    setNotice(waiting > 0 ? `${waiting} approval request(s) put off: open again.` : 'No approval request was put off.');
  };

  const globalCommand = (command: CommandName, input: string) => {
    switch (command) {
      case 'pane.next': return setActive(panes[(panes.indexOf(active) + 1) % panes.length]!);
      case 'pane.previous': return setActive(panes[(panes.indexOf(active) + panes.length - 1) % panes.length]!);
      case 'pane.select': return panes[Number(input) - 1] ? setActive(panes[Number(input) - 1]!) : setNotice(`Pane ${input} is not there yet.`);
      case 'help.toggle': return push({ kind: 'help' });
      case 'deliveries.open': return push({ kind: 'deliveries' });
      case 'messages.open': return push({ kind: 'messages' });
      case 'runs.open': return push({ kind: 'runs' });
      case 'commandLine.open': return push({ kind: 'command', text: '/' });
      case 'pane.filter': return push({ kind: 'filter', pane: active, text: filters[active] ?? '' });
      case 'config.edit': return void editConfigFile();
      case 'approval.reopen': return reopenApprovals();
      case 'app.quit': return link.where === 'attached' || state.runsHere > 0 ? push({ kind: 'quit' }) : onQuit();
      default: return undefined;
    }
  };
  // The bottom layer: what no overlay, dialog or pane took.
  useKeys((input, key) => {
    const binding = commandFor(input, key, ['global']);
    if (binding) globalCommand(binding.command, input);
    return binding !== undefined;
  }, { layer: 'global' });

  const actions: OverlayActions = {
    close, update, install, saveForm, copy: copyThing, quit: onQuit,
    editConfigFile: (id) => void editConfigFile(id),
    submitLine: (id, text) => {
      const entry = stack.find((candidate) => candidate.id === id);
      close(id);
      if (entry?.kind === 'filter') return setFilters((before) => ({ ...before, [entry.pane]: text.trim() }));
      if (text.trim() !== '/' && text.trim() !== '') setCommandHistory((list) => [...list.filter((line) => line !== text), text].slice(-50));
      runSlash(text);
    },
    commandHistory,
    secretOf: (route) => ops.webhooks.secret({ route }).then(({ secret }) => { secrets.current.set(secret, route); return secret; }),
  };

  // Fixed lines: header (and the disconnected banner), tabs, bottom line. The dialog's arguments get what is left after a 3-line pane.
  const chrome = headerHeight(state) + 2; // the header's lines, the tabs, the bottom line
  const maxArgLines = Math.max(1, Math.min(12, rows - chrome - 3 - approvalDialogHeightWithoutArgs));
  const dialogHeight = dialogOpen && head && !elicitation ? approvalDialogHeight(head, maxArgLines, width) : 0;
  const paneHeight = Math.max(1, rows - chrome - dialogHeight);
  // Narrow terminals stack a second pane under the active one when there is room; wide ones use two columns.
  const stacked = !wide && paneHeight >= 14;
  const secondaryHeight = stacked ? Math.floor(paneHeight * 0.35) : 0;
  const activeHeight = stacked ? paneHeight - secondaryHeight - 1 : paneHeight;
  // The filter being typed applies as it is typed; Esc on it leaves the one before.
  const typing = stack.findLast((entry) => entry.kind === 'filter');
  const filterOf = (name: PaneName) => (typing?.kind === 'filter' && typing.pane === name ? typing.text : filters[name] ?? '').trim();
  const renderPane = (name: PaneName, paneWidth: number, focused: boolean, height = activeHeight) => {
    const common = { state, width: paneWidth, focused, height, filter: filterOf(name), onClearFilter: () => setFilters((before) => ({ ...before, [name]: '' })) };
    switch (name) {
      case 'MCP': return <McpPane {...common} ops={ops} onNotice={setNotice} onEdit={edit} onLogin={(server) => (local ? push({ kind: 'login', server }) : setNotice(`OAuth login needs this machine's browser where the gateway runs: run switchboard mcp login ${server} there; the gateway picks the tokens up by itself.`))} />;
      case 'Webhooks': return <WebhooksPane {...common} ops={ops} onNotice={setNotice} onPrompt={setPanePrompt} onCopy={copyThing} onEdit={edit} />;
      case 'Jobs': return <JobsPane {...common} ops={ops} now={now} onNotice={setNotice} onPrompt={setPanePrompt} onEdit={edit} />;
      case 'Approvals': return <ApprovalsPane {...common} ops={ops} now={now} onNotice={setNotice} />;
      case 'Logs': return <LogsPane {...common} />;
      case 'Output': return <OutputPane {...common} onCopy={copyThing} />;
    }
  };
  const secondary: PaneName = active === 'Logs' ? 'Approvals' : 'Logs';
  const leftWidth = wide ? Math.floor(width * 0.6) : width;
  const focusedPaneKeys = !dialogOpen && stack.length === 0;
  const position = head ? state.approvals.indexOf(head) + 1 : 0;
  // Mouse: a click on a tab goes to its pane, one in the other pane focuses it (the focused list takes clicks on its rows itself).
  const tabLabels = panes.map((name, index) => ` ${index + 1} ${titles[name][wide ? 0 : 1]}${name === 'Approvals' && state.approvals.length > 0 ? ` (${state.approvals.length})` : ''} `);
  const tabsBox = useRef<DOMElement>(null);
  const secondaryBox = useRef<DOMElement>(null);
  useClickRegion(tabsBox, ({ column }) => {
    let edge = 0;
    const tab = tabLabels.findIndex((label) => (edge += label.length) > column);
    if (tab >= 0) setActive(panes[tab]!);
  }, { active: focusedPaneKeys });
  useClickRegion(secondaryBox, () => setActive(secondary), { active: focusedPaneKeys && (wide || stacked) });
  // Read when the next dialog mounts: a decision a moment ago pauses its keys (a double tap of `a`).
  const pausedUntil = Date.now() - decidedAt.current < 2000 ? Date.now() + KEY_GUARD_MS : 0;

  return (
    <Box flexDirection="column" width={width} height={rows}>
      <Header state={state} now={now} width={width} />
      <Box ref={tabsBox} flexShrink={0}>
        {panes.map((name, index) => (
          <Text key={name} inverse={name === active} color={name === 'Approvals' && state.approvals.length > 0 ? theme.warn : undefined} wrap="truncate">
            {tabLabels[index]}
          </Text>
        ))}
      </Box>
      <FullOverlays stack={stack} context={{ width, height: rows - chrome, existingNames: state.mcpServers.map((server) => server.name), login: local?.login, openUrl, actions, ops, failedDeliveries: state.failedDeliveries, notices, runsInFlight: state.runsInFlightIds, runNodes: state.runNodes, node: state.snapshot.node }} />
      {elicitation ? <ElicitationDialog key={elicitation.id} request={elicitation} position={position} total={state.approvals.length} now={now} width={width} height={rows - chrome} pausedUntil={pausedUntil} onChoice={answer} onDismiss={dismiss} /> : null}
      {dialogOpen && head && !elicitation ? <ApprovalDialog key={head.id} request={head} position={position} total={state.approvals.length} now={now} width={width} maxArgLines={maxArgLines} pausedUntil={pausedUntil} onChoice={decide} onDismiss={dismiss} /> : null}
      {/* Hidden, not unmounted, under an overlay: the panes keep their selected rows for when it closes. */}
      <Box display={paneHidden ? 'none' : 'flex'} height={paneHeight} flexShrink={0} overflow="hidden" flexDirection={stacked ? 'column' : 'row'}>
        <Box width={leftWidth} height={activeHeight} flexDirection="column" overflow="hidden">{renderPane(active, leftWidth, focusedPaneKeys)}</Box>
        {wide ? <Box ref={secondaryBox} width={width - leftWidth} paddingLeft={1} flexDirection="column" overflow="hidden">{renderPane(secondary, width - leftWidth - 1, false)}</Box> : null}
        {stacked ? <Text color={theme.dim} wrap="truncate">{`── ${titles[secondary][0]} `.padEnd(width, '─')}</Text> : null}
        {stacked ? <Box ref={secondaryBox} width={width} height={secondaryHeight} flexDirection="column" overflow="hidden">{renderPane(secondary, width, false, secondaryHeight)}</Box> : null}
      </Box>
      <BottomLine stack={stack} notice={now - notice.atMs < NOTICE_SHOWN_MS ? notice.text : paneHint(active)} prompt={panePrompt} quitPrompt={quitPrompt(state)} actions={actions} />
    </Box>
  );
}

/** What quitting does: an attached console only detaches; an in-process one stops the gateway. */
function quitPrompt(state: ConsoleState): string {
  if (state.link.where === 'attached' && state.link.status !== 'connected') return `Leave? The gateway (pid ${state.link.hello.pid}) is not answering: this console is only waiting for it. y or Ctrl-C leaves · any other key stays`;
  if (state.link.where === 'attached') return `Detach from the gateway (pid ${state.link.hello.pid})? It keeps running${state.runsHere > 0 ? ` its ${state.runsHere} run(s)` : ''}. y or Ctrl-C detaches · any other key stays`;
  return `${state.runsHere} run(s) in flight: quitting stops the gateway, and webhook runs are queued again for its next start. Quit? y or Ctrl-C quits · any other key stays`;
}

/** The issues an operation listed, after its message (a refused install). */
function issuesText(error: unknown): string {
  const details = (error as { details?: string[] }).details ?? [];
  return details.length > 0 ? `: ${details.join('; ')}` : '';
}
