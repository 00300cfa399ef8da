import type { Command } from './commander.js';
import type { ApprovalPolicy } from '../agent/approval-queue.js';
import { openSession, type OperatorSession } from '../operations/connect.js';
import { ensureConfig, homeOf } from './context.js';
import { say } from './output.js';
import { version } from './version.js';

/** The environment variable that holds the bearer token for `--connect tcp://…`. */
export const CONTROL_TOKEN_ENV = 'SWITCHBOARD_CONTROL_TOKEN';

export interface GlobalOptions {
  home?: string;
  connect?: string;
}

/** `--connect URL` (token from $SWITCHBOARD_CONTROL_TOKEN), or undefined for this home's socket. */
export function connectTarget(command: Command): { url: string; token?: string } | undefined {
  const url = command.optsWithGlobals<GlobalOptions>().connect;
  if (!url) return undefined;
  const token = process.env[CONTROL_TOKEN_ENV];
  return { url, ...(token ? { token } : {}) };
}

/**
 * Runs one CLI command's work through operations: over the control channel when a gateway runs on
 * this home (or `--connect` names one), so the change takes effect before the command returns;
 * in this process when none runs.
 */
export async function withOperations<T>(command: Command, work: (session: OperatorSession) => Promise<T>, options: { approvalPolicy?: ApprovalPolicy } = {}): Promise<T> {
  const home = homeOf(command);
  const connect = connectTarget(command);
  if (!connect) ensureConfig(home, command.optsWithGlobals<GlobalOptions>().home);
  const session = await openSession(home, { version, ...(connect ? { connect } : {}), ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}) });
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** One line on stderr saying where a change took effect. */
export function sayWhere(session: OperatorSession, local: string): void {
  if (session.where === 'gateway') say(`Applied by the running gateway (pid ${session.hello.pid}).`);
  else say(local);
}
