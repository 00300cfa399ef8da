import readline from 'node:readline/promises';
import type { RunEvent } from '../agent/types.js';
import type { OperatorSession } from '../operations/connect.js';
import type { GatewayEvent } from '../operations/state.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { say } from './output.js';

/**
 * Prints the tool calls of one run (by `runId`, else every run of `origin`) and the approval requests
 * of `origin` as they happen, from the gateway's event stream or this process's own gateway; returns
 * the function that stops following.
 */
export async function followRun(session: OperatorSession, which: { runId?: string; origin: string }, interactive: boolean, input: NodeJS.ReadableStream = process.stdin): Promise<() => Promise<void>> {
  const mine = (run: { runId: string; origin: string }) => (which.runId ? run.runId === which.runId : run.origin === which.origin);
  const decided = new Set<string>();
  /** The questions open at this terminal, by request id: a decision made elsewhere cancels its question. */
  const asking = new Map<string, AbortController>();
  const onEvent = (event: GatewayEvent) => {
    if (event.type === 'run.progressed' && mine(event.data)) showProgress(event.data.event);
    if ((event.type === 'approval.resolved' || event.type === 'approval.requested') && event.data.origin !== which.origin) return;
    if (event.type === 'approval.resolved') approvalDecided(event.data, decided, asking);
    // A request the policy denies at once is resolved in the same turn: say only the outcome.
    if (event.type === 'approval.requested') setImmediate(() => { if (!decided.has(event.data.id)) void approvalAsked(session, event.data, interactive, input, asking); });
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
    // The run is over (and the store closes next): an open question must not outlive it.
    for (const question of asking.values()) question.abort();
    events.off('run.progressed', progressed);
    events.off('approval.requested', requested);
    events.off('approval.resolved', resolved);
  };
}

function approvalDecided(record: ApprovalRecord, decided: Set<string>, asking: Map<string, AbortController>): void {
  decided.add(record.id);
  asking.get(record.id)?.abort(record.status === 'approved' || record.status === 'denied' ? `${record.status} elsewhere` : record.status);
  if (record.decidedBy !== 'policy') return;
  const why = record.reason ? ` (${record.reason})` : '';
  say(`  ! ${record.tool} needs approval${why}; denied: approvals.headless is "deny" (set it to "wait" to decide from another terminal or a console)`);
}

/** Where the request can be decided: here at the terminal (a local run), or by any console or `switchboard approvals`. */
async function approvalAsked(session: OperatorSession, request: ApprovalRecord, interactive: boolean, input: NodeJS.ReadableStream, asking: Map<string, AbortController>): Promise<void> {
  const why = request.reason ? ` (${request.reason})` : '';
  if (session.where === 'gateway' || !interactive) {
    say(`  ? ${request.tool} needs approval${why}: decide in a console or with switchboard approvals approve|deny ${request.id.slice(0, 8)}`);
    return;
  }
  const terminal = readline.createInterface({ input, output: process.stderr });
  const question = new AbortController();
  asking.set(request.id, question);
  try {
    say(`  ? ${request.server ? `${request.server} / ` : ''}${request.tool} needs approval${why}:`);
    for (const line of request.argsPreview.split('\n')) say(`      ${line}`);
    const answer = await terminal.question('    approve? [y/N] ', { signal: question.signal }).catch(() => undefined);
    if (answer === undefined) {
      // Readline has ended the prompt's line; the reason is absent when the run ended first.
      if (typeof question.signal.reason === 'string') say(`    (${question.signal.reason})`);
      return;
    }
    const decision = answer.trim().toLowerCase();
    await session.operations.approvals.decide({ id: request.id, decision: decision === 'y' || decision === 'yes' ? 'approve' : 'deny', by: 'cli' }).catch((error: unknown) => say(`    ${(error as Error).message}`));
  } finally {
    asking.delete(request.id);
    terminal.close();
  }
}

function showProgress(event: RunEvent): void {
  if (event.kind === 'tool.called') say(`  > ${event.call.name} ${oneLine(JSON.stringify(event.call.args))}`);
  if (event.kind === 'tool.finished') say(`  < ${event.call.name} ${event.call.isError ? 'error' : 'ok'} (${event.call.finishedAtMs - event.call.startedAtMs} ms): ${oneLine(event.call.result)}`);
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
