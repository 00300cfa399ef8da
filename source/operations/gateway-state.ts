import type { Gateway } from '../gateway/gateway.js';
import type { WebhookRow } from './webhook-rows.js';
import { MAX_APPROVAL_HISTORY, type GatewayState } from './state.js';

/** How many recorded deliveries seed the Webhooks pane, so a console starts with the recent history. */
export const HISTORY_ROWS = 100;

/**
 * The exact parts of the state, read from the core's memory on every snapshot: header, pending
 * approvals, grants, MCP servers, jobs, the failed count. Decided approvals are read once
 * (`initialState`), then follow the `approval.resolved` events.
 */
export function coreState(gateway: Gateway): Pick<GatewayState, 'gateway' | 'approvals' | 'grants' | 'mcpServers' | 'jobs' | 'failedDeliveries'> {
  return {
    gateway: gateway.snapshot(),
    approvals: gateway.approvals.pending(),
    grants: gateway.approvals.grants(),
    mcpServers: gateway.mcp.list(),
    jobs: gateway.jobs.known(), // memory: the scheduler keeps it up to date
    failedDeliveries: gateway.deliveries.failedCount(),
  };
}

/** The store's recent accepted deliveries as pane rows (newest first). */
export async function historyRows(gateway: Gateway): Promise<WebhookRow[]> {
  return (await gateway.webhooks.recent({ limit: HISTORY_ROWS })).map((record) => ({
    key: `h${record.seq}`,
    atMs: record.receivedAtMs,
    route: record.route,
    event: record.event,
    deliveryId: record.deliveryId,
    outcome: record.replayOf ? 'replay' : 'accepted',
    status: 202,
    runState: record.state,
    runStatus: record.runStatus,
    ...(record.node ? { runNode: record.node } : {}), // cluster mode: the node that ran it, as live rows show
    ...(record.deliveryDetail || record.error ? { delivery: record.state === 'delivered' ? { ok: true as const, detail: record.deliveryDetail ?? '' } : { ok: false as const, reason: record.error ?? record.deliveryDetail ?? '' } } : {}),
  }));
}

/** The last decided approval requests, newest first. */
async function approvalHistory(gateway: Gateway) {
  return (await gateway.approvals.recent(MAX_APPROVAL_HISTORY * 2)).filter((record) => record.status !== 'pending').slice(0, MAX_APPROVAL_HISTORY);
}

/** A state with no activity yet: the core's parts plus the recorded history. */
export async function initialState(gateway: Gateway): Promise<GatewayState> {
  return { ...coreState(gateway), approvalHistory: await approvalHistory(gateway), webhooks: await historyRows(gateway), outputs: [], logs: [], runsInFlight: [] };
}
