import { describeSubject } from '../delivery/log-target.js';
import type { RetryResult } from '../delivery/types.js';
import type { OutputDelivery } from '../store/output-deliveries.js';
import type { OperationsCore } from './core.js';
import { OperatorError } from './errors.js';
import { optionalCount, optionalFlag, text, type Implementation, type Params } from './params.js';

/** A delivery without its output text, with a title saying what it was for (webhook, job or console run). */
export type OutputDeliveryView = Omit<OutputDelivery, 'output'> & { title: string };

export interface DeliveryOperations {
  /** Outputs sent to targets, newest first, attempts included (the output text left out). */
  list(params: { failed?: boolean; limit?: number }): Promise<OutputDeliveryView[]>;
  /** Sends a failed (or uncertain) delivery again, from the first part that did not go out; a delivered one is left alone. */
  retry(params: { id: string }): Promise<RetryResult>;
}

export function createDeliveryOperations(core: OperationsCore): DeliveryOperations {
  const history = async () => {
    const store = (await core.gateway()).deliveries.history;
    if (!store) throw new OperatorError('unavailable', 'Delivery history is not recorded in this process');
    return store;
  };
  return {
    async list(params: Params) {
      const rows = await (await history()).recent({ failedOnly: optionalFlag(params, 'failed', 'deliveries.list'), limit: optionalCount(params, 'limit', 'deliveries.list', 50) });
      return rows.map(({ output: _output, ...row }) => ({ ...row, title: describeSubject(row) }));
    },
    async retry(params: Params) {
      const ref = text(params, 'id', 'deliveries.retry');
      const found = await (await history()).find(ref);
      if (found === 'ambiguous') throw new OperatorError('invalid', `"${ref}" matches more than one delivery`, 'Type more characters of the id (switchboard deliveries list).');
      if (!found) throw new OperatorError('not_found', `No delivery with id "${ref}"`, 'See them with: switchboard deliveries list --failed');
      if (found.status === 'delivered') return { ok: true, detail: `${found.id} was already delivered`, recordId: found.id, alreadyDelivered: true };
      return (await core.gateway()).deliveries.retry(found.id);
    },
  } satisfies Implementation<DeliveryOperations> as unknown as DeliveryOperations;
}
