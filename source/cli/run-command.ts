import { randomUUID } from 'node:crypto';
import { Command } from './commander.js';
import { followRun } from './follow-run.js';
import { print, say } from './output.js';
import { withOperations } from './session.js';
import type { Operations } from '../operations/index.js';

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
        const stop = await followRun(session, { runId, origin: 'cli' }, interactive);
        const onSignal = () => void session.operations.runs.cancel({ runId }).catch(() => {});
        process.once('SIGINT', onSignal);
        try {
          if (session.where === 'gateway') say(`Running on the gateway (pid ${session.hello.pid})...`);
          if (options.skill.length > 0) await warnMissingSkills(session.operations, options.skill);
          const result = await session.operations.runs.run({ prompt, skills: options.skill, origin: 'cli', runId });
          if (options.json) print(JSON.stringify(await session.operations.runs.get({ runId: result.runId }), undefined, 2));
          else if (result.output) print(result.output);
          // A cancelled run's error only says it was cancelled.
          if (result.status === 'cancelled') say(`Run cancelled (run ${result.runId}).`);
          else if (result.status !== 'ok') say(`Run ${result.status}: ${result.error ?? ''} (run ${result.runId})`);
          process.exitCode = result.status === 'ok' ? 0 : 1;
        } finally {
          process.off('SIGINT', onSignal);
          await stop();
        }
      }, interactive ? { approvalPolicy: 'interactive' } : {});
    });
}

/** A skill that is missing or cannot be used does not stop the run (README, Skills); the operator hears it here, not only in gateway.log. */
async function warnMissingSkills(operations: Operations, wanted: readonly string[]): Promise<void> {
  const { warnings } = await operations.skills.check({ names: [...wanted] });
  for (const warning of warnings) say(`  ! ${warning}; the run goes on without it`);
}
