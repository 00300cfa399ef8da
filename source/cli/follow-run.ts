import type { RunEvent } from '../agent/types.js';
import type { OperatorSession } from '../operations/connect.js';
import { elicitationFields } from '../operations/elicitation-fields.js';
import type { GatewayEvent } from '../operations/state.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { askForm } from './ask-form.js';
import { answerCommand, asksFor } from './form-format.js';
import { say } from './output.js';
import { terminalTurns, type Ask } from './terminal-questions.js';

type FormRequest = ApprovalRecord & { form: NonNullable<ApprovalRecord['form']> };

/**
 * Prints the tool calls of one run (by `runId`, else every run of `origin`) and the approval requests
 * of `origin` as they happen, from the gateway's event stream or this process's own gateway; returns
 * the function that stops following. A form (elicitation) is recorded with the server as its origin:
 * it is followed when it comes from a server whose tool the run is calling.
 */
export async function followRun(session: OperatorSession, which: { runId?: string; origin: string }, interactive: boolean, input: NodeJS.ReadableStream = process.stdin): Promise<() => Promise<void>> {
  const mine = (run: { runId: string; origin: string }) => (which.runId ? run.runId === which.runId : run.origin === which.origin);
  const decided = new Set<string>();
  /** The questions open at this terminal, by request id: a decision made elsewhere cancels its question. */
  const asking = new Map<string, AbortController>();
  const progress = createProgress();
  /** Requests asked here one at a time (two approvals at once must not read the same keys). */
  const turns = terminalTurns(input);
  let stopped = false;
  /** The forms followed (their origin is the server's). */
  const forms = new Set<string>();
  const followed = (record: ApprovalRecord) => record.origin === which.origin || forms.has(record.id);
  const onEvent = (event: GatewayEvent) => {
    if (event.type === 'run.progressed' && mine(event.data)) progress.show(event.data.event);
    if (event.type === 'approval.requested' && event.data.form && progress.calling(event.data.server)) forms.add(event.data.id);
    if ((event.type === 'approval.resolved' || event.type === 'approval.requested') && !followed(event.data)) return;
    if (event.type === 'approval.resolved') approvalDecided(event.data, decided, asking);
    // A request the policy denies at once is resolved in the same turn: say only the outcome.
    if (event.type === 'approval.requested') setImmediate(() => { if (!decided.has(event.data.id)) void approvalAsked(session, event.data, interactive, turns, asking, () => stopped || decided.has(event.data.id)); });
  };
  if (session.where === 'gateway') {
    const subscription = await session.client.subscribe<unknown, unknown>({ onSnapshot: () => {}, onEvent: (event) => onEvent({ type: event.type, data: event.data } as GatewayEvent) });
    return () => subscription.unsubscribe();
  }
  const { events } = await session.local.gateway();
  const progressed = (data: { runId: string; origin: string; event: RunEvent }) => onEvent({ type: 'run.progressed', data });
  const requested = (record: ApprovalRecord) => onEvent({ type: 'approval.requested', data: record });
  const resolved = (record: ApprovalRecord) => onEvent({ type: 'approval.resolved', data: record });
  events.on('run.progressed', progressed);
  events.on('approval.requested', requested);
  events.on('approval.resolved', resolved);
  return async () => {
    // The run is over (and the store closes next): an open question must not outlive it, nor a waiting one start.
    stopped = true;
    for (const question of asking.values()) question.abort();
    events.off('run.progressed', progressed);
    events.off('approval.requested', requested);
    events.off('approval.resolved', resolved);
  };
}

function approvalDecided(record: ApprovalRecord, decided: Set<string>, asking: Map<string, AbortController>): void {
  decided.add(record.id);
  const elsewhere = record.form ? { approved: 'answered', denied: 'declined' } : { approved: 'approved', denied: 'denied' };
  asking.get(record.id)?.abort(record.status === 'approved' || record.status === 'denied' ? `${elsewhere[record.status]} elsewhere` : record.status);
  if (record.decidedBy !== 'policy') return;
  if (record.form) {
    say(`  ! ${asksFor({ ...record, form: record.form })}; declined: approvals.headless is "deny" (set it to "wait" to answer from another terminal or a console)`);
    return;
  }
  const why = record.reason ? ` (${record.reason})` : '';
  say(`  ! ${record.tool} needs approval${why}; denied: approvals.headless is "deny" (set it to "wait" to decide from another terminal or a console)`);
}

/**
 * Where the request can be decided: here at the terminal (a local run), or by any console or
 * `switchboard approvals`. At the terminal a request waits for the one before it; `over` says it was
 * decided elsewhere (or the run ended) meanwhile, and then it is not asked at all.
 */
async function approvalAsked(session: OperatorSession, request: ApprovalRecord, interactive: boolean, turns: ReturnType<typeof terminalTurns>, asking: Map<string, AbortController>, over: () => boolean): Promise<void> {
  const why = request.reason ? ` (${request.reason})` : '';
  const form = request.form ? { ...request, form: request.form } : undefined;
  if (session.where === 'gateway' || !interactive) {
    if (form) say(`  ? ${asksFor(form)}; answer with ${answerCommand(form, elicitationFields(form.form.schema))} (or --decline)`);
    else say(`  ? ${request.tool} needs approval${why}: decide in a console or with switchboard approvals approve|deny ${request.id.slice(0, 8)}`);
    return;
  }
  await turns.take(async (terminal) => {
    if (over()) return;
    const question = new AbortController();
    const ask = (prompt: string) => terminal.ask(prompt, question.signal);
    asking.set(request.id, question);
    try {
      const decide = form ? () => answerAtTerminal(session, form, ask) : () => approveAtTerminal(session, request, ask);
      if (!(await decide())) {
        // Readline has ended the prompt's line; the reason is absent when the run ended first.
        if (typeof question.signal.reason === 'string') say(`    (${question.signal.reason})`);
      }
    } finally {
      asking.delete(request.id);
    }
  });
}

/** `approve? [y/N]`; false when the question was cancelled. */
async function approveAtTerminal(session: OperatorSession, request: ApprovalRecord, ask: Ask): Promise<boolean> {
  say(`  ? ${request.server ? `${request.server} / ` : ''}${request.tool} needs approval${request.reason ? ` (${request.reason})` : ''}:`);
  for (const line of request.argsPreview.split('\n')) say(`      ${line}`);
  const answer = await ask('    approve? [y/N] ');
  if (answer === undefined) return false;
  const decision = answer.trim().toLowerCase();
  await session.operations.approvals.decide({ id: request.id, decision: decision === 'y' || decision === 'yes' ? 'approve' : 'deny', by: 'cli' }).catch((error: unknown) => say(`    ${(error as Error).message}`));
  return true;
}

/** Who asks for what, then the questions (ask-form.ts); false when they were cancelled. */
async function answerAtTerminal(session: OperatorSession, request: FormRequest, ask: Ask): Promise<boolean> {
  const fields = elicitationFields(request.form.schema);
  say(`  ? ${asksFor(request)}`);
  const answer = await askForm(ask, fields);
  if (!answer) return false;
  await session.operations.approvals.answer({ id: request.id, ...answer, by: 'cli' }).catch((error: unknown) => say(`    ${(error as Error).message}`));
  return true;
}

/**
 * The `>` and `<` lines of a run's tool calls, and the calls in flight with who provides them. A call
 * the model could not make (an unknown tool, arguments that are not JSON) is never started: its `>`
 * line comes with its `<` line, which says it was not run.
 */
function createProgress() {
  const inFlight = new Map<string, string | undefined>();
  const called = (call: { name: string; args: unknown }) => say(`  > ${call.name} ${oneLine(JSON.stringify(call.args) ?? '')}`);
  return {
    show(event: RunEvent): void {
      if (event.kind === 'tool.called') {
        inFlight.set(event.call.id, event.call.source);
        called(event.call);
      }
      if (event.kind !== 'tool.finished') return;
      const { call } = event;
      if (!inFlight.delete(call.id)) {
        called(call);
        say(`  < ${call.name} not run: ${oneLine(call.result)}`);
      } else {
        say(`  < ${call.name} ${call.isError ? 'error' : 'ok'} (${call.finishedAtMs - call.startedAtMs} ms): ${oneLine(call.result)}`);
      }
    },
    /** Whether a call of the run is in flight on `server` (whose form is then the run's). */
    calling: (server: string | null) => server !== null && [...inFlight.values()].includes(server),
  };
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
