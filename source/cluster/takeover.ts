import type { Logger } from 'pino';
import { repeatableTarget } from '../delivery/repeatable.js';
import type { DeliveryRecord } from '../store/webhook-deliveries.js';
import type { SharedStore } from '../store/shared-store.js';

/**
 * The work a silent node held, taken over by this one: its sends marked (uncertain, or failed to
 * be redone), its agent and job runs closed, its webhook runs queued again or, when only their
 * delivery was left, handed to this node's queue (`deliver`).
 */
export function createTakeover(deps: {
  shared: Pick<SharedStore, 'backendsOf' | 'nodes' | 'heartbeatMs'>;
  now: () => number;
  logger: Logger;
  /** Hands this node's webhook queue what is left to deliver; undefined: this node runs no webhook platform. */
  deliver: ((undelivered: DeliveryRecord[]) => Promise<void>) | undefined;
}): (silentNodeId: string) => Promise<void> {
  const { shared, now, logger } = deps;
  const silentFor = `${(3 * shared.heartbeatMs) / 1000} s`;
  return async (silent) => {
    const other = shared.backendsOf(silent);
    const why = `its gateway (node ${silent}) stopped answering during this run`;
    const sends = await other.outputDeliveries.recoverInterrupted(repeatableTarget, now());
    const runs = await other.runs.closeInterrupted(why, now());
    const jobRuns = await other.jobs.closeInterrupted(why, now());
    const { requeued, undelivered } = await other.deliveries.recover();
    if (!deps.deliver) {
      logger.warn(`Node ${silent} went silent (no heartbeat for ${silentFor}); this node took over its work: ${requeued} webhook run(s) queued again, ${runs} agent run(s) and ${jobRuns} job run(s) closed as interrupted, ${sends.uncertain} send(s) marked uncertain; ${undelivered.length} finished webhook run(s) wait for their delivery until node ${silent} starts again (this node has no webhook platform to deliver them)`);
      return;
    }
    const adopted = await shared.nodes.adoptDeliveries(silent, undelivered);
    const mine = undelivered.filter((row) => adopted.has(row.seq));
    logger.warn(`Node ${silent} went silent (no heartbeat for ${silentFor}); this node took over its work: ${requeued} webhook run(s) queued again, ${mine.length} to deliver, ${runs} agent run(s) and ${jobRuns} job run(s) closed as interrupted, ${sends.uncertain} send(s) marked uncertain`);
    await deps.deliver(mine);
  };
}
