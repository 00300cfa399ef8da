import type { Logger } from 'pino';
import type { GatewayEvent } from '../operations/state.js';
import type { EventChannel } from '../store/pg/event-channel.js';

/** The events a console on any node shows for the whole cluster: webhook requests, runs and their ends. */
export const RELAYED_EVENTS: ReadonlySet<GatewayEvent['type']> = new Set(['webhook.received', 'webhook.runStarted', 'webhook.completed']);

/** Events of one node gathered this long into one NOTIFY (a flood is tens of notifications a second, not thousands). */
const BATCH_MS = 50;
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7_500;

/**
 * Cluster mode: this node's webhook events go to the other nodes (NOTIFY, batched), and theirs come
 * into this node's journal and read model (`record`), so attached consoles show every node's
 * deliveries with the node that handles each. They never reach this node's own listeners (metrics,
 * logs): those count what this node did.
 */
export function createEventRelay(deps: {
  nodeId: string;
  open: (onPayload: (payload: string) => void, onTrouble: (error: unknown) => void) => Promise<EventChannel>;
  record: (event: GatewayEvent) => void;
  logger: Logger;
}) {
  let channel: EventChannel | undefined;
  let batch: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const publish = (events: string[]) => void channel?.publish(`{"node":${JSON.stringify(deps.nodeId)},"events":[${events.join(',')}]}`)
    .catch((error: unknown) => deps.logger.warn({ err: error }, 'Sending webhook events to the other nodes failed; their consoles miss them'));
  const flush = () => {
    timer = undefined;
    let chunk: string[] = [];
    let size = 0;
    for (const event of batch) {
      if (event.length > MAX_PAYLOAD) continue; // never this big in practice: a record is a few hundred bytes
      if (size + event.length > MAX_PAYLOAD) {
        publish(chunk);
        chunk = [];
        size = 0;
      }
      chunk.push(event);
      size += event.length + 1;
    }
    if (chunk.length > 0) publish(chunk);
    batch = [];
  };
  const received = (payload: string) => {
    try {
      const message = JSON.parse(payload) as { node: string; events: GatewayEvent[] };
      if (message.node === deps.nodeId) return;
      for (const event of message.events) if (RELAYED_EVENTS.has(event.type)) deps.record(event);
    } catch (error) {
      deps.logger.warn({ err: error }, 'An unreadable event from another node was skipped');
    }
  };
  return {
    async start(): Promise<void> {
      channel = await deps.open(received, (error) => deps.logger.warn({ err: error }, 'The event channel to the other nodes dropped; opening it again in 5 s'));
    },
    /** One of this node's events (already stamped with its node). */
    send(event: GatewayEvent): void {
      batch.push(JSON.stringify(event));
      timer ??= setTimeout(flush, BATCH_MS);
    },
    async stop(): Promise<void> {
      clearTimeout(timer);
      flush();
      await channel?.close();
    },
  };
}
