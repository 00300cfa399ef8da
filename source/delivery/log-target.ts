import type { Logger } from 'pino';
import type { DeliveryRequest, DeliveryResult } from './types.js';

/** `log`: the output goes to gateway.log, with what it belongs to. */
export function deliverToLog(logger: Logger, request: DeliveryRequest): DeliveryResult {
  logger.info({ delivery: request.subject, failed: request.failed === true, output: request.output }, `Delivered to log: ${describeSubject(request)}`);
  return { ok: true, detail: 'written to gateway.log' };
}

export function describeSubject(request: Pick<DeliveryRequest, 'subject'>): string {
  const subject = request.subject;
  if (subject.kind === 'webhook') return `webhook ${subject.route} delivery ${subject.deliveryId}`;
  if (subject.kind === 'job') return `job ${subject.jobName} (${subject.jobId}) run ${subject.runId}`;
  return `console run ${subject.runId}`;
}
