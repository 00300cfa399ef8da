import type { SessionGrant } from '../agent/approval-queue.js';
import type { ApprovalRecord } from '../store/approvals.js';
import type { OperationsCore } from './core.js';
import { elicitationFields } from './elicitation-fields.js';
import { OperatorError } from './errors.js';
import { formAnswer } from './form-answer.js';
import { optionalFlag, optionalText, text, type Implementation, type Params } from './params.js';

export interface ApprovalOperations {
  /** Pending requests, oldest first; with `all`, the last 50 in every state, newest first. */
  list(params: { all?: boolean }): Promise<ApprovalRecord[]>;
  /** One request in any state (id or its first characters): `approvals answer` reads a form's fields before it answers. */
  get(params: { id: string }): Promise<ApprovalRecord>;
  /** Approve or deny one pending request (id or its first characters). The waiting run goes on at once. */
  decide(params: { id: string; decision: 'approve' | 'deny'; reason?: string; by?: string }): Promise<ApprovalRecord>;
  /**
   * Approve this request and every later call of the same tool until the gateway stops; requests
   * of that tool already waiting are released too (`released` says how many).
   */
  approveForSession(params: { id: string; by?: string }): Promise<{ record: ApprovalRecord; released: number }>;
  /** The session grants in effect. */
  grants(params: Record<string, never>): Promise<SessionGrant[]>;
  /** Ends a session grant: later calls of that tool ask again. */
  revokeGrant(params: { tool: string; server?: string | null }): Promise<SessionGrant>;
  /** The answer to an elicitation form (`values`, checked against its fields: nothing is sent when they do not fit), or a decline. */
  answer(params: { id: string; values?: Record<string, unknown>; decline?: boolean; by?: string }): Promise<ApprovalRecord>;
}

const listHint = 'See the pending ones: switchboard approvals list';

export function createApprovalOperations(core: OperationsCore): ApprovalOperations {
  type Queue = Awaited<ReturnType<OperationsCore['gateway']>>['approvals'];
  const queue = async (): Promise<Queue> => (await core.gateway()).approvals;
  const lookUp = async (approvals: Queue, params: Params, method: string): Promise<ApprovalRecord> => {
    const ref = text(params, 'id', method);
    const found = await approvals.find(ref);
    if (found === 'ambiguous') throw new OperatorError('invalid', `"${ref}" matches more than one approval`, 'Type more characters of the id (switchboard approvals list).');
    if (!found) throw new OperatorError('not_found', `No approval with id "${ref}"`, listHint);
    return found;
  };
  const find = async (approvals: Queue, params: Params, method: string): Promise<ApprovalRecord> => {
    const found = await lookUp(approvals, params, method);
    if (found.status !== 'pending') {
      const what = found.form ? `form from ${found.server ?? found.origin}` : `${found.tool} for ${found.origin}`;
      const status = found.form && found.status === 'approved' ? 'answered' : found.form && found.status === 'denied' ? 'declined' : found.status;
      throw new OperatorError('conflict', `Approval ${found.id} (${what}) is already ${status}${found.decidedBy ? ` (by ${found.decidedBy})` : ''}`, 'Nothing was changed.');
    }
    return found;
  };
  const settled = async (approvals: Queue, record: ApprovalRecord, made: boolean): Promise<ApprovalRecord> => {
    const now = await approvals.find(record.id);
    if (!made || now === undefined || now === 'ambiguous') {
      throw new OperatorError('conflict', `Approval ${record.id} was decided by someone else a moment ago`, 'Nothing was changed.');
    }
    return now;
  };

  return {
    async list(params: Params) {
      const approvals = await queue();
      return optionalFlag(params, 'all', 'approvals.list') ? approvals.recent(50) : approvals.pendingInStore();
    },
    async get(params: Params) {
      return lookUp(await queue(), params, 'approvals.get');
    },
    async decide(params: Params) {
      const approvals = await queue();
      const record = await find(approvals, params, 'approvals.decide');
      const decision = params.decision;
      if (decision !== 'approve' && decision !== 'deny') throw new OperatorError('invalid', 'approvals.decide: "decision" must be "approve" or "deny"');
      const reason = optionalText(params, 'reason', 'approvals.decide');
      const by = optionalText(params, 'by', 'approvals.decide') ?? 'operator';
      if (record.form && decision === 'approve') {
        throw new OperatorError('invalid', `Approval ${record.id} is a form from ${record.server ?? record.origin}: answer it with values`, `Answer it with switchboard approvals answer ${record.id.slice(0, 8)} --value field=... (its fields: switchboard approvals list), or --decline; or fill it in in the console.`);
      }
      const made = await approvals.resolve(record.id, decision === 'approve' ? 'approved' : 'denied', { ...(reason ? { reason } : {}), by });
      return settled(approvals, record, made);
    },
    async approveForSession(params: Params) {
      const approvals = await queue();
      const record = await find(approvals, params, 'approvals.approveForSession');
      if (record.form) throw new OperatorError('invalid', `Approval ${record.id} is a form, not a tool call: it cannot be approved for the session`);
      const granted = await approvals.approveForSession(record.id, optionalText(params, 'by', 'approvals.approveForSession') ?? 'operator');
      return { record: await settled(approvals, record, granted !== false), released: granted === false ? 0 : granted.released };
    },
    async grants() {
      return (await queue()).grants();
    },
    async revokeGrant(params: Params) {
      const grant = { tool: text(params, 'tool', 'approvals.revokeGrant'), server: optionalText(params, 'server', 'approvals.revokeGrant') ?? null };
      if (!(await queue()).revokeGrant(grant)) throw new OperatorError('not_found', `No session grant for ${grant.server ? `${grant.server} / ` : ''}${grant.tool}`, 'See the grants in the console\'s Approvals pane.');
      return grant;
    },
    async answer(params: Params) {
      const approvals = await queue();
      const record = await find(approvals, params, 'approvals.answer');
      const by = optionalText(params, 'by', 'approvals.answer') ?? 'operator';
      if (!record.form) throw new OperatorError('invalid', `Approval ${record.id} is a call of ${record.tool}, not a form: it has nothing to answer`, `Approve or deny it: switchboard approvals approve|deny ${record.id.slice(0, 8)}`);
      if (optionalFlag(params, 'decline', 'approvals.answer')) return settled(approvals, record, await approvals.resolve(record.id, 'denied', { reason: 'declined by the operator', by }));
      const values = params.values;
      if (values === null || typeof values !== 'object' || Array.isArray(values)) throw new OperatorError('invalid', 'approvals.answer: "values" must be an object');
      const answer = formAnswer(elicitationFields(record.form.schema), { values: values as Record<string, unknown> });
      if (!answer.ok) throw new OperatorError('invalid', `The answer does not fit the form of approval ${record.id} (${record.server ?? record.origin})`, 'Nothing was sent. See its fields: switchboard approvals list', answer.problems);
      return settled(approvals, record, await approvals.resolve(record.id, 'approved', { values: answer.values, by }));
    },
  } satisfies Implementation<ApprovalOperations> as unknown as ApprovalOperations;
}
