import type { ControlClient } from '../control/client.js';
import type { ControlStatus } from '../control/client.js';
import type { GatewayHost } from './host.js';
import type { Operations } from './index.js';
import type { GatewayEvent, GatewayHello, GatewayState } from './state.js';

export type LinkStatus = ControlStatus;

export interface LinkHandlers {
  /** The whole state: first on subscribe, again after a re-attach that could not resume. */
  onSnapshot(state: GatewayState): void;
  /** Every event after the snapshot, in order. */
  onEvent(event: GatewayEvent): void;
}

/**
 * A console's line to a gateway: operations, the state stream and the connection status. The same
 * shape whether the gateway runs in the console's own process or is attached over the socket, so
 * the console has one code path.
 */
export interface GatewayLink {
  where: 'in-process' | 'attached';
  /** Attached over TCP (`--connect`): the gateway's files are on another machine. */
  remote: boolean;
  operations: Operations;
  hello(): GatewayHello;
  subscribe(handlers: LinkHandlers): () => void;
  onStatus(listener: (status: LinkStatus, detail?: string) => void): () => void;
  close(): Promise<void>;
}

/** The console runs the gateway itself: events come straight from its journal. */
export function inProcessLink(host: GatewayHost): GatewayLink {
  return {
    where: 'in-process',
    remote: false,
    operations: host.operations,
    hello: () => host.hello(),
    subscribe(handlers) {
      handlers.onSnapshot(host.state());
      return host.journal.listen((event) => handlers.onEvent({ type: event.type, data: event.data } as GatewayEvent));
    },
    onStatus: () => () => {},
    close: async () => {},
  };
}

/**
 * Attached over the control channel. `onClientStatus` receives the client's status changes (it was
 * given to the client when it connected); after a re-attach the hello is read again before anyone
 * hears `connected` (the gateway may have restarted: another pid, another listener).
 */
export function attachedLink(client: ControlClient, operations: Operations, initialHello: GatewayHello, remote: boolean): GatewayLink & { onClientStatus(status: LinkStatus, detail?: string): void } {
  let hello = initialHello;
  const statusListeners = new Set<(status: LinkStatus, detail?: string) => void>();
  const tell = (status: LinkStatus, detail?: string) => statusListeners.forEach((listener) => listener(status, detail));
  return {
    onClientStatus(status, detail) {
      if (status !== 'connected') return tell(status, detail);
      void client.hello().then((next) => { hello = next as unknown as GatewayHello; }, () => {}).finally(() => tell(status, detail));
    },
    where: 'attached',
    remote,
    operations,
    hello: () => hello,
    subscribe(handlers) {
      const subscription = client.subscribe<GatewayState, unknown>({
        onSnapshot: (state) => handlers.onSnapshot(state),
        onEvent: (event) => handlers.onEvent({ type: event.type, data: event.data } as GatewayEvent),
      }, { operator: true, view: 'console' });
      return () => void subscription.then((s) => s.unsubscribe()).catch(() => {});
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    close: () => client.close(),
  };
}
