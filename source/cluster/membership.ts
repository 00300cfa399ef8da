import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Component } from '../gateway/lifecycle.js';
import type { NodeInfo, NodeView } from '../store/pg/nodes.js';
import type { SharedStore } from '../store/shared-store.js';
import { repeatedFailure } from '../infra/repeated-failure.js';
import { configWarning } from './nodes-table.js';

/** A node stopped or taken over this long ago leaves the table (`status` would list it forever). */
export const FORGET_AFTER_MS = 72 * 3_600_000;

export interface Membership extends Component {
  /** Every node the cluster has seen, with its state (`up`, `down`, `stopped`). */
  nodes(): Promise<NodeView[]>;
}

/**
 * This node in the cluster: joins, beats every `heartbeatMs`, and at each beat takes over the work
 * of nodes silent for 3 heartbeats (`takeOver`, one live node per silent one). Leaves on a clean stop.
 * A node paused longer than 3 heartbeats (a frozen VM) may have its runs taken over while it still
 * holds them: docs/cluster.md says what that costs.
 */
export function createMembership(deps: {
  shared: Pick<SharedStore, 'nodes' | 'heartbeatMs'>;
  info: () => NodeInfo;
  takeOver: (silentNodeId: string) => Promise<void>;
  logger: Logger;
}): Membership {
  const { nodes, heartbeatMs } = deps.shared;
  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<void> | undefined;
  let configsDiffer: string | undefined;
  // Said in the log (and so in every attached console) when it starts and when it ends, not only in
  // `status` and /nodes, which an operator has to open.
  const compareConfigs = async () => {
    const warning = configWarning(await nodes.list());
    if (warning && warning !== configsDiffer) deps.logger.warn(`Cluster: ${warning}`);
    else if (!warning && configsDiffer) deps.logger.info('Cluster: the nodes that are up run the same config.json again');
    configsDiffer = warning;
  };
  const beat = async () => {
    const takenBy = await nodes.beat(deps.info());
    if (takenBy) {
      deps.logger.error(`Node ${takenBy} took this node for dead (no heartbeat for ${(3 * heartbeatMs) / 1000} s) and took over the work it held then: runs of that moment may run twice. This node goes on; give it more CPU or raise store.heartbeat_seconds`);
    }
    for (const silent of await nodes.claimSilent()) await deps.takeOver(silent);
    for (const gone of await nodes.forgetGone(FORGET_AFTER_MS)) {
      deps.logger.info(`Cluster: node ${gone} left the nodes table (stopped or taken over ${FORGET_AFTER_MS / 3_600_000} h ago); it joins again if it comes back`);
    }
    await compareConfigs();
  };
  const beatFailures = repeatedFailure(deps.logger, 'The cluster heartbeat');
  const tick = () => {
    beating ??= beat()
      .then(() => beatFailures.worked(), (error: unknown) => beatFailures.failed(error))
      .finally(() => { beating = undefined; });
  };
  return {
    name: 'cluster membership',
    async start() {
      await nodes.join(deps.info());
      timer = setInterval(tick, heartbeatMs);
      timer.unref();
      tick(); // nodes that died while this one was down are taken over now, not a heartbeat later
    },
    async stop() {
      clearInterval(timer);
      await beating;
      await nodes.leave().catch((error: unknown) => deps.logger.warn({ err: error }, 'Leaving the cluster failed: the others will see this node down after 3 heartbeats'));
    },
    nodes: () => nodes.list(),
  };
}

/**
 * The first 12 hex digits of the SHA-256 of config.json as the nodes should share it: its parsed
 * text (so `${VAR}` references, never secret values), keys sorted, without what is each node's own
 * (the listener's host and port, the control channel), which differ between nodes on one machine.
 */
export function configHash(configFile: string): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  } catch {
    return 'unreadable';
  }
  delete parsed.control;
  const extra = (parsed.platforms as { webhook?: { extra?: Record<string, unknown> } } | undefined)?.webhook?.extra;
  if (extra) {
    delete extra.host;
    delete extra.port;
  }
  return createHash('sha256').update(sortedJson(parsed)).digest('hex').slice(0, 12);
}

/** JSON with every object's keys in order: the same config hashes the same however it was written. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
