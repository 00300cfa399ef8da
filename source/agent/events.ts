import type { ApprovalRecord } from '../store/approvals.js';
import type { SessionGrant } from './approval-queue.js';
import type { RunEvent, RunResult } from './types.js';

/** The agent runtime's events: runs and approvals (joined into GatewayEventMap). */
export interface AgentEventMap {
  'approval.requested': [ApprovalRecord];
  'approval.resolved': [ApprovalRecord];
  /** A session grant was added (approve for the session) or revoked. */
  'approval.grantsChanged': [{ grants: SessionGrant[] }];
  'run.started': [{ runId: string; origin: string; prompt: string; atMs: number }];
  'run.progressed': [{ runId: string; origin: string; event: RunEvent }];
  'run.finished': [RunResult & { origin: string }];
}
