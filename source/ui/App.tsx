import { Box, Text, useApp, useInput, useWindowSize } from 'ink';
import TextInput from 'ink-text-input';
import { useState } from 'react';
import type { McpServerConfig } from '../config/types.js';
import type { ConfigIssue } from '../config/validate.js';
import type { McpCommands } from '../mcp/gateway-component.js';
import { parseInstallLink, type InstallLink } from '../operations/mcp-links.js';
import type { GatewayLink } from '../operations/link.js';
import type { EditorResult } from '../infra/editor.js';
import { InstallConfirmation, type InstallDecision } from './components/InstallConfirmation.js';
import { LoginDialog } from './components/LoginDialog.js';
import { ConfigProblems } from './components/ConfigProblems.js';
import { ElicitationDialog, type ElicitationChoice } from './components/ElicitationDialog.js';
import { Form } from './components/Form.js';
import { SubscriptionCard } from './components/SubscriptionCard.js';
import { issuesOf } from './forms/config-entry-form.js';
import { describeApplied, type EditForm } from './forms/edit-form.js';
import { editFormFor, type EditTarget } from './forms/edit-target.js';
import type { FieldErrors } from './forms/form-fields.js';
import { ApprovalDialog, approvalDialogHeight, type ApprovalChoice } from './components/ApprovalDialog.js';
import { Header } from './components/Header.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import type { ConsoleModel, ConsoleState } from './console-model.js';
import { useConsoleState } from './hooks/useConsoleState.js';
import { useNow } from './hooks/useNow.js';
import { commandFor } from './keymap.js';
import { ApprovalsPane } from './panes/ApprovalsPane.js';
import { JobsPane } from './panes/JobsPane.js';
import { LogsPane } from './panes/LogsPane.js';
import { McpPane } from './panes/McpPane.js';
import { OutputPane } from './panes/OutputPane.js';
import { WebhooksPane } from './panes/WebhooksPane.js';
import { parseSlash, slashCommands } from './slash-commands.js';
import { runCoreSlash, type SubscribedView } from './slash-runner.js';
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
}

type Overlay = { kind: 'none' } | { kind: 'help' } | { kind: 'command'; text: string } | { kind: 'filter'; text: string } | { kind: 'quit' } | { kind: 'install'; link: InstallLink }
  | { kind: 'form'; form: EditForm; errors: FieldErrors; busy: boolean } | { kind: 'subscribed'; view: SubscribedView } | { kind: 'configProblems'; issues: ConfigIssue[]; reason: string } | { kind: 'login'; server: string };
/** Overlays that take the whole pane area. */
const fullOverlays: ReadonlySet<Overlay['kind']> = new Set(['help', 'install', 'form', 'subscribed', 'configProblems', 'login']);

const panes = ['MCP', 'Webhooks', 'Jobs', 'Approvals', 'Logs', 'Output'] as const;
/** Tab titles: long ones where they fit (wide terminals), short ones down to 80 columns. */
const titles: Record<(typeof panes)[number], [string, string]> = {
  MCP: ['MCP servers', 'MCP'], Webhooks: ['Webhook deliveries', 'Webhooks'], Jobs: ['Jobs', 'Jobs'], Approvals: ['Approvals', 'Approvals'], Logs: ['Logs', 'Logs'], Output: ['Output', 'Output'],
};
/** approvalDialogHeight() less the argument lines, at most: border, title, origin, tool, annotations, margins, "more", keys. */
const approvalDialogHeightWithoutArgs = 10;
type PaneName = (typeof panes)[number];

/** The operator console: header, panes, the approval dialog over them, and one keymap. */
export function App({ model, link, local, copy, openUrl, openEditor, onQuit }: AppProps) {
  const ops = link.operations;
  const { suspendTerminal } = useApp();
  const state = useConsoleState(model);
  const now = useNow(1000);
  const { columns, rows } = useWindowSize();
  const [active, setActive] = useState<PaneName>('Logs');
  const [overlay, setOverlay] = useState<Overlay>({ kind: 'none' });
  const [notice, setNotice] = useState<string>('Press ? for keys, / for commands.');
  const [filter, setFilter] = useState('');
  /** A pane is taking typed input (the webhook test payload, a confirm): global keys wait. */
  const [paneCapture, setPaneCapture] = useState(false);

  const head = state.approvals[0];
  const dialogOpen = head !== undefined && overlay.kind === 'none';
  const elicitation = dialogOpen && head?.form ? { ...head, form: head.form } : undefined;
  const paneHidden = fullOverlays.has(overlay.kind) || elicitation !== undefined;
  const width = Math.max(40, columns);
  const wide = width >= 120;

  const copyThing = (text: string, what: string) => {
    void copy(text).then((ok) => setNotice(ok ? `Copied ${what} to the clipboard.` : `No clipboard here; ${what}: ${text.slice(0, width - 20)}`));
  };

  const runSlash = (line: string) => {
    const parsed = parseSlash(line);
    if (!parsed) return setNotice('Commands start with /; /help lists them.');
    if (parsed.name === 'help') return setOverlay({ kind: 'help' });
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
      return setOverlay({ kind: 'install', link: link.value });
    }
    const reply = runCoreSlash(ops, parsed.name, parsed.rest, Date.now());
    if (reply) {
      setNotice(reply.now);
      void reply.later?.then(setNotice);
      void reply.subscribed?.then((view) => { if (view) setOverlay({ kind: 'subscribed', view }); });
      return;
    }
    setNotice(`Unknown command /${parsed.name}. Known: ${slashCommands.map((command) => `/${command.name}`).join(', ')}`);
  };

  const install = (link: InstallLink, decision: InstallDecision) => {
    setOverlay({ kind: 'none' });
    if (decision.action === 'cancel') return setNotice('Install cancelled; nothing was written.');
    setNotice(`Installing MCP server "${decision.name}"...`);
    void ops.mcp.add({ name: decision.name, entry: link.config as McpServerConfig, by: 'console' }).then(
      () => setNotice(`Installed MCP server "${decision.name}"; connecting it.`),
      (error: unknown) => setNotice(`Not installed: ${(error as Error).message}${issuesText(error)}`));
  };

  const decide = (choice: ApprovalChoice) => {
    setPaneCapture(false);
    if (!head) return;
    const request = head;
    const decided = choice.decision === 'approveSession'
      ? ops.approvals.approveForSession({ id: request.id, by: 'console' }).then(({ released }) => `Approved ${request.tool} for the session${released > 0 ? `; ${released} queued request(s) of it released too` : ''}.`)
      : ops.approvals.decide({ id: request.id, decision: choice.decision === 'approve' ? 'approve' : 'deny', by: 'console', ...(choice.decision === 'deny' && choice.reason ? { reason: choice.reason } : {}) })
        .then(() => `${choice.decision === 'deny' ? 'Denied' : 'Approved'} ${request.tool} for ${request.origin}.`);
    void decided.then(setNotice, (error: unknown) => setNotice((error as Error).message));
  };

  const answer = (choice: ElicitationChoice) => {
    if (!head) return;
    const request = head;
    void ops.approvals.answer(choice.decision === 'answer' ? { id: request.id, values: choice.values } : { id: request.id, decline: true }).then(
      () => setNotice(`${choice.decision === 'answer' ? 'Sent the answer' : 'Declined the request'} of ${request.server ?? request.origin}.`),
      (error: unknown) => setNotice((error as Error).message));
  };

  const edit = (target: EditTarget) => {
    void editFormFor(ops, target).then((form) => ('error' in form ? setNotice(form.error) : setOverlay({ kind: 'form', form, errors: {}, busy: false })));
  };

  const saveForm = (form: EditForm, values: Record<string, unknown>) => {
    setOverlay({ kind: 'form', form, errors: {}, busy: true });
    void form.save(values).then(
      (outcome) => {
        if (!outcome.ok) return setOverlay({ kind: 'form', form, errors: outcome.errors, busy: false });
        setOverlay({ kind: 'none' });
        setNotice(outcome.notice);
      },
      (error: unknown) => setOverlay({ kind: 'form', form, errors: { '': `Not saved: ${(error as Error).message}` }, busy: false }),
    );
  };

  /** E: the terminal goes to $EDITOR; on return the file is checked and what changed is applied (an invalid file changes nothing). */
  const editConfigFile = async () => {
    setOverlay({ kind: 'none' });
    if (link.remote) return setNotice('E edits config.json where the gateway runs: not from a console attached over TCP (edit it there, or use the e forms).');
    const { file } = await ops.config.path({});
    let ran: EditorResult = { ok: false, reason: 'the editor did not start' };
    const editing = () => suspendTerminal(async () => { ran = await openEditor(file); });
    await (local ? local.whileEditing(editing) : editing());
    if (!ran.ok) return setNotice(`config.json not reloaded: ${ran.reason}.`);
    try {
      setNotice(describeApplied('config.json', await ops.config.reload({ by: 'console' })));
    } catch (error) {
      setOverlay({ kind: 'configProblems', issues: issuesOf(error), reason: (error as Error).message });
    }
  };

  useInput((input, key) => {
    if (overlay.kind === 'help') return setOverlay({ kind: 'none' });
    if (overlay.kind === 'form' || overlay.kind === 'subscribed') return; // they take every key
    if (overlay.kind === 'configProblems') {
      if (key.return || input === 'E') return void editConfigFile();
      setOverlay({ kind: 'none' });
      return setNotice('config.json is left invalid; the previous config stays in effect, and a restart would refuse the file. E opens it again.');
    }
    if (overlay.kind === 'quit') {
      if (input === 'y') onQuit();
      else setOverlay({ kind: 'none' });
      return;
    }
    if (overlay.kind === 'command' || overlay.kind === 'filter') {
      if (key.escape) setOverlay({ kind: 'none' });
      return;
    }
    if (overlay.kind === 'install' || overlay.kind === 'login') return; // the dialog takes every key
    if (paneCapture) return;
    if (elicitation && !(key.ctrl && input === 'c')) return; // its form takes typed text: q or ? are letters there
    const binding = commandFor(input, key, ['global']);
    if (!binding) return;
    // The approval dialog takes its own keys first; only quitting and help pass through it.
    if (dialogOpen && binding.command !== 'app.quit' && binding.command !== 'help.toggle') return;
    switch (binding.command) {
      case 'pane.next': return setActive(panes[(panes.indexOf(active) + 1) % panes.length]!);
      case 'pane.previous': return setActive(panes[(panes.indexOf(active) + panes.length - 1) % panes.length]!);
      case 'pane.select': return panes[Number(input) - 1] ? setActive(panes[Number(input) - 1]!) : setNotice(`Pane ${input} is not there yet.`);
      case 'help.toggle': return setOverlay({ kind: 'help' });
      case 'commandLine.open': return setOverlay({ kind: 'command', text: '/' });
      case 'log.filter': return setOverlay({ kind: 'filter', text: filter });
      case 'config.edit': return void editConfigFile();
      case 'app.quit': return link.where === 'attached' || state.runsInFlight > 0 ? setOverlay({ kind: 'quit' }) : onQuit();
      default: return undefined;
    }
  });

  // Fixed lines: header (and the disconnected banner), tabs, bottom line. The dialog's arguments get what is left after a 3-line pane.
  const chrome = state.link.status === 'connected' ? 3 : 4;
  const maxArgLines = Math.max(1, Math.min(12, rows - chrome - 3 - approvalDialogHeightWithoutArgs));
  const dialogHeight = dialogOpen && head && !elicitation ? approvalDialogHeight(head, maxArgLines) : 0;
  const paneHeight = Math.max(1, rows - chrome - dialogHeight);
  // Narrow terminals stack a second pane under the active one when there is room; wide ones use two columns.
  const stacked = !wide && paneHeight >= 14;
  const secondaryHeight = stacked ? Math.floor(paneHeight * 0.35) : 0;
  const activeHeight = stacked ? paneHeight - secondaryHeight - 1 : paneHeight;
  const renderPane = (name: PaneName, paneWidth: number, focused: boolean, height = activeHeight) => {
    const common = { state, width: paneWidth, focused, height };
    switch (name) {
      case 'MCP': return <McpPane {...common} ops={ops} onNotice={setNotice} onEdit={edit} onLogin={(server) => (local ? setOverlay({ kind: 'login', server }) : setNotice(`OAuth login needs this machine's browser where the gateway runs: run switchboard mcp login ${server} there; the gateway picks the tokens up by itself.`))} />;
      case 'Webhooks': return <WebhooksPane {...common} ops={ops} onNotice={setNotice} onCopy={copyThing} onCapture={setPaneCapture} onEdit={edit} />;
      case 'Jobs': return <JobsPane {...common} ops={ops} now={now} onNotice={setNotice} onEdit={edit} />;
      case 'Approvals': return <ApprovalsPane {...common} now={now} />;
      case 'Logs': return <LogsPane {...common} filter={filter} />;
      case 'Output': return <OutputPane {...common} onCopy={copyThing} />;
    }
  };
  const secondary: PaneName = active === 'Logs' ? 'Approvals' : 'Logs';
  const leftWidth = wide ? Math.floor(width * 0.6) : width;
  const focusedPaneKeys = !dialogOpen && overlay.kind === 'none';

  return (
    <Box flexDirection="column" width={width} height={rows}>
      <Header state={state} now={now} width={width} />
      <Box flexShrink={0}>
        {panes.map((name, index) => (
          <Text key={name} inverse={name === active} color={name === 'Approvals' && state.approvals.length > 0 ? theme.warn : undefined} wrap="truncate">
            {` ${index + 1} ${titles[name][wide ? 0 : 1]}${name === 'Approvals' && state.approvals.length > 0 ? ` (${state.approvals.length})` : ''} `}
          </Text>
        ))}
      </Box>
      {overlay.kind === 'help' ? <HelpOverlay width={width} height={rows - chrome} /> : null}
      {overlay.kind === 'install' ? <InstallConfirmation link={overlay.link} existingNames={state.mcpServers.map((server) => server.name)} onDecision={(decision) => install(overlay.link, decision)} /> : null}
      {overlay.kind === 'form' ? <Form key={overlay.form.title} title={overlay.form.title} fields={overlay.form.fields} width={width} height={rows - chrome} errors={overlay.errors} busy={overlay.busy} onSubmit={(values) => saveForm(overlay.form, values)} onCancel={() => { setOverlay({ kind: 'none' }); setNotice('Edit cancelled; nothing was written.'); }} /> : null}
      {overlay.kind === 'subscribed' ? <SubscriptionCard view={overlay.view} width={width} secretOf={(route) => ops.webhooks.secret({ route }).then(({ secret }) => secret)} onCopy={copyThing} onClose={(text) => { setOverlay({ kind: 'none' }); if (text) setNotice(text); }} /> : null}
      {overlay.kind === 'login' && local ? <LoginDialog key={overlay.server} server={overlay.server} login={local.login} openUrl={openUrl} copy={copyThing} width={width} onClose={(text) => { setOverlay({ kind: 'none' }); setNotice(text); }} /> : null}
      {overlay.kind === 'configProblems' ? <ConfigProblems issues={overlay.issues} reason={overlay.reason} width={width} height={rows - chrome} /> : null}
      {elicitation ? <ElicitationDialog key={elicitation.id} request={elicitation} position={1} total={state.approvals.length} now={now} width={width} height={rows - chrome} onChoice={answer} /> : null}
      {dialogOpen && head && !elicitation ? <ApprovalDialog key={head.id} request={head} position={1} total={state.approvals.length} now={now} width={width} maxArgLines={maxArgLines} onChoice={decide} onCapture={setPaneCapture} /> : null}
      {paneHidden ? null : (
        <Box height={paneHeight} flexShrink={0} overflow="hidden" flexDirection={stacked ? 'column' : 'row'}>
          <Box width={leftWidth} height={activeHeight} flexDirection="column" overflow="hidden">{renderPane(active, leftWidth, focusedPaneKeys)}</Box>
          {wide ? <Box width={width - leftWidth} paddingLeft={1} flexDirection="column" overflow="hidden">{renderPane(secondary, width - leftWidth - 1, false)}</Box> : null}
          {stacked ? <Text color={theme.dim} wrap="truncate">{`── ${titles[secondary][0]} `.padEnd(width, '─')}</Text> : null}
          {stacked ? <Box width={width} height={secondaryHeight} flexDirection="column" overflow="hidden">{renderPane(secondary, width, false, secondaryHeight)}</Box> : null}
        </Box>
      )}
      {overlay.kind === 'command' || overlay.kind === 'filter' ? (
        <Box>
          <Text color={theme.accent}>{overlay.kind === 'filter' ? 'filter logs: ' : ''}</Text>
          <TextInput
            value={overlay.text}
            onChange={(text) => setOverlay({ ...overlay, text })}
            onSubmit={(text) => {
              setOverlay({ kind: 'none' });
              if (overlay.kind === 'filter') setFilter(text.trim());
              else runSlash(text);
            }}
          />
        </Box>
      ) : overlay.kind === 'quit' ? (
        <Text color={theme.warn} wrap="truncate-end">{quitPrompt(state)}</Text>
      ) : (
        <Text color={theme.dim} wrap="truncate-end">{notice}</Text>
      )}
    </Box>
  );
}

/** What quitting does: an attached console only detaches; an in-process one stops the gateway. */
function quitPrompt(state: ConsoleState): string {
  if (state.link.where === 'attached') return `Detach from the gateway (pid ${state.link.hello.pid})? It keeps running${state.runsInFlight > 0 ? ` its ${state.runsInFlight} run(s)` : ''}. y / any other key to stay`;
  return `${state.runsInFlight} run(s) in flight: quitting stops the gateway, and webhook runs are queued again for its next start. Quit? y / any other key to stay`;
}

/** The issues an operation listed, after its message (a refused install). */
function issuesText(error: unknown): string {
  const details = (error as { details?: string[] }).details ?? [];
  return details.length > 0 ? `: ${details.join('; ')}` : '';
}
