import fs from 'node:fs/promises';
import { runShell } from '../infra/shell.js';
import { dangerousReasons } from './dangerous-commands.js';
import { notApprovedText, type ToolDefinition } from './types.js';

export type TerminalApproval = 'never' | 'dangerous' | 'always';

export interface TerminalToolSettings {
  workdir: string;
  timeoutMs: number;
  approval: TerminalApproval;
  maxOutputBytes?: number;
  /** Where each command's pid file goes while it runs (reaped after a gateway crash). */
  childrenDir?: string;
}

export const TERMINAL_OUTPUT_BYTES = 64 * 1024;

/** The built-in `terminal` tool: one shell command per call, in the agent's workdir. */
export function createTerminalTool(settings: TerminalToolSettings): ToolDefinition {
  return {
    name: 'terminal',
    source: 'builtin',
    description: `Run one shell command with /bin/sh -c in ${settings.workdir}. stdin is closed; the command is killed after ${Math.round(settings.timeoutMs / 1000)} s. Returns the exit code and the combined stdout/stderr (long output keeps its head and tail).`,
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The shell command to run.' } },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: { destructiveHint: true, openWorldHint: true },
    parallelSafe: false,
    async execute(args, context) {
      const command = typeof args.command === 'string' ? args.command : '';
      if (command.trim() === '') return { text: 'terminal: "command" must be a non-empty string', isError: true };
      const reasons = settings.approval === 'always' ? ['agent.terminal.approval is "always"'] : settings.approval === 'dangerous' ? dangerousReasons(command) : [];
      if (reasons.length > 0) {
        const outcome = await context.requestApproval({ tool: 'terminal', args: { command }, annotations: { destructiveHint: true }, reason: `matches: ${reasons.join(', ')}` });
        if (outcome.status !== 'approved') return { text: notApprovedText(outcome, 'command'), isError: true };
      }
      await fs.mkdir(settings.workdir, { recursive: true });
      const result = await runShell({ command, cwd: settings.workdir, timeoutMs: settings.timeoutMs, maxOutputBytes: settings.maxOutputBytes ?? TERMINAL_OUTPUT_BYTES, signal: context.signal, childrenDir: settings.childrenDir });
      if (result.timedOut) return { text: `Command timed out after ${Math.round(settings.timeoutMs / 1000)} s and was killed (whole process group).\n${result.output}`, isError: true };
      if (result.cancelled) return { text: `Command cancelled with the run.\n${result.output}`, isError: true };
      const status = result.exitCode === null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
      return { text: `${status}\n${result.output}`, isError: result.exitCode !== 0 };
    },
  };
}
