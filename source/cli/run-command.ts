import { Command } from 'commander';
import { createAgentStack } from '../agent/agent-stack.js';
import type { RunEvent } from '../agent/types.js';
import { createGatewayEvents } from '../gateway/events.js';
import { createRunStore } from '../store/runs.js';
import { withCliCore } from './context.js';
import { print, say } from './output.js';

/** `switchboard run "<prompt>"`: one agent run from the terminal; progress on stderr, the answer on stdout. */
export function runCommand(): Command {
  return new Command('run')
    .description('Run one agent prompt now; tool calls show on stderr, the answer on stdout')
    .argument('<prompt>', 'the instruction for the agent')
    .option('--skill <name>', 'load a skill (repeatable, in order)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--json', 'print the stored run record instead of the answer')
    .action(async (prompt: string, options: { skill: string[]; json?: boolean }, command: Command) => {
      await withCliCore(command, async ({ config, logger, store }) => {
        const events = createGatewayEvents();
        const policy = config.values.approvals?.headless ?? 'deny';
        events.on('approval.requested', (request) => {
          const why = request.reason ? ` (${request.reason})` : '';
          if (policy === 'wait') say(`  ? ${request.tool} needs approval${why}: switchboard approvals approve|deny ${request.id.slice(0, 8)}`);
          else say(`  ! ${request.tool} needs approval${why}; denied: approvals.headless is "deny" (set it to "wait" to decide from another terminal)`);
        });
        const stack = createAgentStack({ config, store, logger, policy, events });
        const controller = new AbortController();
        const onSignal = () => controller.abort();
        process.once('SIGINT', onSignal);
        const result = await stack.runAgent({ prompt, skills: options.skill, origin: 'cli', signal: controller.signal, onEvent: showProgress });
        process.off('SIGINT', onSignal);
        if (options.json) print(JSON.stringify(createRunStore(store).get(result.runId), undefined, 2));
        else if (result.output) print(result.output);
        if (result.status !== 'ok') say(`Run ${result.status}: ${result.error ?? ''} (run ${result.runId})`);
        process.exitCode = result.status === 'ok' ? 0 : 1;
      });
    });
}

function showProgress(event: RunEvent): void {
  if (event.kind === 'tool.called') say(`  > ${event.call.name} ${oneLine(JSON.stringify(event.call.args))}`);
  if (event.kind === 'tool.finished') say(`  < ${event.call.name} ${event.call.isError ? 'error' : 'ok'} (${event.call.finishedAtMs - event.call.startedAtMs} ms): ${oneLine(event.call.result)}`);
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
