import { randomUUID } from 'node:crypto';
import readline from 'node:readline/promises';
import { Command } from 'commander';
import type { RunEvent } from '../agent/types.js';
import type { OperatorSession } from '../operations/connect.js';
import type { GatewayEvent } from '../operations/state.js';
import type { ApprovalRecord } from '../store/approvals.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';

/**
 * `switchboard run "<prompt>"`: one agent run from the terminal; progress on stderr, the answer on
 * stdout. Inside the running gateway when there is one (its MCP tools, its approvals: every console
 * sees them); otherwise in this process with the configured MCP servers connected first, and tool
 * calls that need approval asked here when this is a terminal.
 */
export function runCommand(): Command {
  return new Command('run')
    .description('Run one agent prompt now (inside the running gateway, or here with the MCP servers); tool calls show on stderr, the answer on stdout')
    .argument('<prompt>', 'the instruction for the agent')
    .option('--skill <name>', 'load a skill (repeatable, in order)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--json', 'print the run result instead of the answer')
    .action(async (prompt: string, options: { skill: string[]; json?: boolean }, command: Command) => {
      const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
      await withOperations(command, async (session) => {
        const runId = randomUUID();
        const stop = await followRun(session, runId, interactive);
        const onSignal = () => void session.operations.runs.cancel({ runId }).catch(() => {});
        process.once('SIGINT', onSignal);
        try {
          if (session.where === 'gateway') say(`Running on the gateway (pid ${session.hello.pid})...`);
          const result = await session.operations.runs.run({ prompt, skills: options.skill, origin: 'cli', runId });
          if (options.json) print(JSON.stringify(await session.operations.runs.get({ runId: result.runId }), undefined, 2));
          else if (result.output) print(result.output);
          if (result.status !== 'ok') say(`Run ${result.status}: ${result.error ?? ''} (run ${result.runId})`);
          process.exitCode = result.status === 'ok' ? 0 : 1;
        } finally {
          process.off('SIGINT', onSignal);
          await stop();
        }
      }, interactive ? { approvalPolicy: 'interactive' } : {});
    });
}

/** Prints this run's tool calls and approval requests as they happen; returns the function that stops following. */
async function followRun(session: OperatorSession, runId: string, interactive: boolean): Promise<() => Promise<void>> {
  const decided = new Set<string>();
  const onEvent = (event: GatewayEvent) => {
    if (event.type === 'run.progressed' && event.data.runId === runId) showProgress(event.data.event);
    if (event.type === 'approval.resolved') approvalDecided(event.data, decided);
    // A request the policy denies at once is resolved in the same turn: say only the outcome.
    if (event.type === 'approval.requested') setImmediate(() => { if (!decided.has(event.data.id)) void approvalAsked(session, event.data, interactive); });
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
    events.off('run.progressed', progressed);
    events.off('approval.requested', requested);
    events.off('approval.resolved', resolved);
  };
}

function approvalDecided(record: ApprovalRecord, decided: Set<string>): void {
  decided.add(record.id);
  if (record.decidedBy !== 'policy') return;
  const why = record.reason ? ` (${record.reason})` : '';
  say(`  ! ${record.tool} needs approval${why}; denied: approvals.headless is "deny" (set it to "wait" to decide from another terminal or a console)`);
}

/** Where the request can be decided: here at the terminal (a local run), or by any console or `switchboard approvals`. */
async function approvalAsked(session: OperatorSession, request: ApprovalRecord, interactive: boolean): Promise<void> {
  const why = request.reason ? ` (${request.reason})` : '';
  if (session.where === 'gateway' || !interactive) {
    say(`  ? ${request.tool} needs approval${why}: decide in a console or with switchboard approvals approve|deny ${request.id.slice(0, 8)}`);
    return;
  }
  const terminal = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    say(`  ? ${request.server ? `${request.server} / ` : ''}${request.tool} needs approval${why}:`);
    for (const line of request.argsPreview.split('\n')) say(`      ${line}`);
    const answer = (await terminal.question('    approve? [y/N] ')).trim().toLowerCase();
    await session.operations.approvals.decide({ id: request.id, decision: answer === 'y' || answer === 'yes' ? 'approve' : 'deny', by: 'cli' }).catch((error: unknown) => say(`    ${(error as Error).message}`));
  } finally {
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
