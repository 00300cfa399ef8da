import { createApprovalOperations, type ApprovalOperations } from './approvals.js';
import { createConfigOperations, type ConfigOperations } from './config.js';
import type { OperationsCore } from './core.js';
import { createDeliveryOperations, type DeliveryOperations } from './deliveries.js';
import { OperatorError } from './errors.js';
import { createJobOperations, type JobOperations } from './jobs.js';
import { createMcpOperations, type McpOperations } from './mcp.js';
import { paramsOf } from './params.js';
import { createRunOperations, type RunOperations } from './runs.js';
import { createSkillOperations, type SkillOperations } from './skills.js';
import type { GatewayState } from './state.js';
import type { NodeView } from '../store/pg/nodes.js';
import { createWebhookOperations, type WebhookOperations } from './webhooks.js';

export interface GatewayOperations {
  /** The whole console view now (what `events.subscribe` sends as its snapshot). */
  state(params: Record<string, never>): Promise<GatewayState>;
  /** Cluster mode: this node's id and every node with its heartbeat; null for a gateway on SQLite. */
  nodes(params: Record<string, never>): Promise<{ nodeId: string; nodes: NodeView[] } | null>;
}

/**
 * The one entry into the core for every front end: the CLI and the console call these, in-process
 * or over the control channel (method name = `domain.verb`, one params object, a JSON result, or
 * an OperatorError). A new command is a function here first, then a few lines in cli/ or ui/.
 */
export interface Operations {
  gateway: GatewayOperations;
  jobs: JobOperations;
  webhooks: WebhookOperations;
  deliveries: DeliveryOperations;
  approvals: ApprovalOperations;
  runs: RunOperations;
  skills: SkillOperations;
  mcp: McpOperations;
  config: ConfigOperations;
}

export type OperationName = { [D in keyof Operations]: `${D}.${keyof Operations[D] & string}` }[keyof Operations];

export function createOperations(core: OperationsCore, state: () => GatewayState | Promise<GatewayState>): Operations {
  return {
    gateway: {
      state: async () => state(),
      async nodes() {
        const cluster = (await core.gateway()).cluster;
        return cluster ? { nodeId: cluster.nodeId, nodes: await cluster.nodes() } : null;
      },
    },
    jobs: createJobOperations(core),
    webhooks: createWebhookOperations(core),
    deliveries: createDeliveryOperations(core),
    approvals: createApprovalOperations(core),
    runs: createRunOperations(core),
    skills: createSkillOperations(core),
    mcp: createMcpOperations(core),
    config: createConfigOperations(core),
  };
}

/** Thrown for a method name that is not an operation (the control channel answers -32601). */
export class UnknownOperationError extends Error {
  constructor(readonly method: string) {
    super(`Unknown method "${method}"`);
  }
}

/** The operation a method name (`domain.verb`) names, if any. */
function handlerOf(operations: Operations, method: string): ((params: unknown) => Promise<unknown>) | undefined {
  const [domain, verb, extra] = method.split('.');
  if (domain === undefined || verb === undefined || extra !== undefined || !Object.hasOwn(operations, domain)) return undefined;
  const group = (operations as unknown as Record<string, Record<string, unknown>>)[domain]!;
  const handler = Object.hasOwn(group, verb) ? group[verb] : undefined;
  return typeof handler === 'function' ? (handler as (params: unknown) => Promise<unknown>) : undefined;
}

export function hasOperation(operations: Operations, method: string): boolean {
  return handlerOf(operations, method) !== undefined;
}

/** Calls an operation by its method name: how the control channel serves requests. */
export async function dispatchOperation(operations: Operations, method: string, params: unknown): Promise<unknown> {
  const handler = handlerOf(operations, method);
  if (!handler) throw new UnknownOperationError(method);
  return handler(paramsOf(method, params));
}

export { OperatorError };
export { createRemoteOperations } from './remote.js';
