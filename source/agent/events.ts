import type { ApprovalRecord } from '../store/approvals.js';
import type { SessionGrant } from './approval-queue.js';
import type { RunEvent, RunResult } from './types.js';

/** The agent runtime's events: runs and approvals (joined into GatewayEventMap). */
export interface AgentEventMap {
  'approval.requested': [ApprovalRecord];
  'approval.resolved': [ApprovalRecord];
  /** A session grant was added (approve for the session) or revoked. */
  'approval.grantsChanged': [{ grants: SessionGrant[] }];
  /** `node`: cluster mode, on a run of another node (relayed; its prompt left out). */
  'run.started': [{ runId: string; origin: string; prompt: string; atMs: number; node?: string }];
  'run.progressed': [{ runId: string; origin: string; event: RunEvent }];
  /** `node`: cluster mode, on a run of another node (relayed; its output and tool calls left out). */
  'run.finished': [RunResult & { origin: string; node?: string }];
}
