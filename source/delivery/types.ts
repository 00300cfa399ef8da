import type { HeldDelivery } from '../store/webhook-deliveries.js';

/** What was produced and for whom; targets use it for file names and messages. */
export type DeliverySubject =
  /**
   * \`seq\`: the delivery row's id (absent on records written before it was kept), by which a send is
   * found again after a crash or a takeover whatever the clocks said (\`earlierSendFor\`).
   */
  | { kind: 'webhook'; route: string; deliveryId: string; event: string; seq?: number }
  | { kind: 'job'; jobId: string; jobName: string; runId: string }
  | { kind: 'console'; runId: string };

/** `deliver_extra` after rendering: values keep their JSON type (`pr_number: 42` stays a number). */
export type DeliverExtra = Record<string, string | number | boolean>;

export interface DeliveryRequest {
  /** The `deliver` value as configured: `log`, `local`, `origin`, `github_comment`, `telegram:123`... */
  target: string;
  /** Rendered `deliver_extra` values. */
  extra?: DeliverExtra;
  output: string;
  subject: DeliverySubject;
  /** The run failed: targets say so (failed runs are always delivered with the error). */
  failed?: boolean;
  /**
   * A webhook's output: the claim of its delivery row. In cluster mode a send that must not happen
   * twice is recorded only while that claim still holds the row (store/pg/output-deliveries.ts).
   */
  held?: HeldDelivery;
}

/** `recordId`: the history record, when deliveries are recorded (`switchboard deliveries`). */
export type DeliveryResult = { ok: true; detail: string; recordId?: string } | { ok: false; reason: string; recordId?: string };

/**
 * A retry's outcome: a send's result, or nothing sent because the record was delivered already
 * (`alreadyDelivered`) or is being sent now by its first send or another retry (`busy`).
 */
export type RetryResult = DeliveryResult
  | { ok: true; detail: string; recordId: string; alreadyDelivered: true }
  | { ok: false; reason: string; recordId: string; busy: true };

/** Delivers one output; never throws: every failure is a reason an operator can read. */
export type Deliver = (request: DeliveryRequest) => Promise<DeliveryResult>;
