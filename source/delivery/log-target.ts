import type { Logger } from 'pino';
import { PER_DELIVERY } from '../infra/log-ring.js';
import type { DeliveryRequest, DeliveryResult } from './types.js';

/**
 * `log`: the output goes to gateway.log, with what it belongs to. A webhook's is a line per delivery,
 * which the Logs pane leaves out (the Webhooks pane shows the delivery); a job's or a console run's stays.
 */
export function deliverToLog(logger: Logger, request: DeliveryRequest): DeliveryResult {
  const perDelivery = request.subject.kind === 'webhook' ? PER_DELIVERY : undefined;
  logger.info({ delivery: request.subject, failed: request.failed === true, output: request.output, ...perDelivery }, `Delivered to log: ${describeSubject(request)}`);
  return { ok: true, detail: 'written to gateway.log' };
}

export function describeSubject(request: Pick<DeliveryRequest, 'subject'>): string {
  const subject = request.subject;
  if (subject.kind === 'webhook') return `webhook ${subject.route} delivery ${subject.deliveryId}`;
  if (subject.kind === 'job') return `job ${subject.jobName} (${subject.jobId}) run ${subject.runId}`;
  return `console run ${subject.runId}`;
}
