import type { GatewaySnapshot } from '../gateway/gateway.js';
import type { GatewayLink, LinkStatus } from '../operations/link.js';
import { createReadModel, resyncEvents, type GatewayEvent, type GatewayHello, type GatewayState, type OutputEntry, type ReadModel } from '../operations/state.js';

export type { OutputEntry };

/** How this console reaches its gateway, for the header and the quit prompt. */
export interface LinkView {
  where: GatewayLink['where'];
  status: LinkStatus;
  /** Why it is disconnected, or what it is dialling. */
  detail?: string;
  hello: GatewayHello;
}

/** What the panes draw: the gateway's state folded from its snapshot and events, plus the link. */
export interface ConsoleState extends Omit<GatewayState, 'gateway' | 'runsInFlight'> {
  version: number;
  snapshot: GatewaySnapshot;
  /** Every node's in cluster mode (the header). */
  runsInFlight: number;
  /** Those of the gateway this console runs or is attached to (what quitting stops or leaves running). */
  runsHere: number;
  /** Their ids (the X overlay). */
  runsInFlightIds: readonly string[];
  link: LinkView;
}

/** The runs in flight on the gateway itself, without those of other nodes (cluster mode). */
function runsHere(state: GatewayState): number {
  const elsewhere = state.runNodes;
  if (!elsewhere || state.runsInFlight.length === 0) return state.runsInFlight.length;
  return state.runsInFlight.filter((runId) => !elsewhere[runId]).length;
}

/** How many failed deliveries the header counts by id at most (D shows the newest 100). */
const FAILED_SEED_LIMIT = 1000;

/** Changes folded into one frame that mark a flood (a webhook burst), not someone at the keyboard. */
const FLOOD_CHANGES = 50;

/**
 * The console's read model: the snapshot the link sends, then every event folded in (the same fold
 * as the gateway's, `createReadModel`), and nothing read per frame. After a rare event that events
 * do not describe (config change, listener bound) it reads the header and MCP servers once. Bursts
 * are batched: listeners hear at most one change per `flushMs`, and one per `burstFlushMs` after a
 * frame that folded a flood, so 500 webhooks a second cannot flood the renderer.
 */
export function createConsoleModel(deps: { link: GatewayLink; flushMs?: number; burstFlushMs?: number }) {
  const { link } = deps;
  const listeners = new Set<() => void>();
  let read: ReadModel | undefined;
  let linkView: LinkView = { where: link.where, status: 'connected', hello: link.hello() };
  let state: ConsoleState | undefined;
  let version = 0;
  let timer: NodeJS.Timeout | undefined;

  const build = (): ConsoleState => {
    const folded = read!.state();
    return { ...folded, version, snapshot: folded.gateway, runsInFlight: folded.runsInFlight.length,
      runsHere: runsHere(folded), runsInFlightIds: folded.runsInFlight, link: linkView };
  };

  const flushMs = deps.flushMs ?? 33;
  const burstFlushMs = Math.max(flushMs, deps.burstFlushMs ?? 100);
  let changes = 0;
  let flooded = false;
  const changed = () => {
    changes += 1;
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      flooded = changes >= FLOOD_CHANGES;
      changes = 0;
      if (!read) return;
      version += 1;
      state = build();
      listeners.forEach((listener) => listener());
    }, flooded ? burstFlushMs : flushMs);
  };

  // One read at a time; a rare event during a read asks for one more afterwards.
  let resyncing = false;
  let again = false;
  const resync = () => {
    if (resyncing) {
      again = true;
      return;
    }
    resyncing = true;
    void link.operations.gateway.state({}).then((next) => {
      read?.refresh(next);
      changed();
    }, () => {}).finally(() => {
      resyncing = false;
      if (again) {
        again = false;
        resync();
      }
    });
  };

  const unsubscribe = link.subscribe({
    onSnapshot(snapshot) {
      if (read) read.reset(snapshot);
      else read = createReadModel(snapshot);
      // The snapshot has a count, not ids: read D's list so retries and successes count by delivery.
      const ids = Promise.resolve().then(() => link.operations.deliveries.list({ failed: true, limit: FAILED_SEED_LIMIT })).then((rows) => rows.map((row) => row.id));
      void read.seedFailed(ids).then((seeded) => { if (seeded) changed(); }, () => {}); // no history here: the snapshot's count stays
      version += 1;
      state = build();
      listeners.forEach((listener) => listener());
    },
    onEvent(event: GatewayEvent) {
      read?.apply(event);
      if (resyncEvents.has(event.type)) resync();
      changed();
    },
  });
  const offStatus = link.onStatus((status, detail) => {
    linkView = { where: link.where, status, ...(detail ? { detail } : {}), hello: link.hello() };
    if (status === 'connected') resync(); // the gateway may have restarted: its header and servers anew
    changed();
  });

  return {
    /** Undefined until the first snapshot has arrived. */
    getState: (): ConsoleState => {
      if (!state) throw new Error('The console model has no snapshot yet: wait for ready()');
      return state;
    },
    /** Resolves once the first snapshot is folded. */
    ready: () => new Promise<void>((resolve) => {
      if (state) return resolve();
      const listener = () => { listeners.delete(listener); resolve(); };
      listeners.add(listener);
    }),
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    /** For a clock tick or a resize: draw again. */
    refresh: changed,
    addOutput(entry: OutputEntry) {
      read?.addOutput(entry);
      changed();
    },
    dispose() {
      if (timer) clearTimeout(timer);
      unsubscribe();
      offStatus();
      listeners.clear();
    },
  };
}

export type ConsoleModel = ReturnType<typeof createConsoleModel>;
