import type { HomeLayout } from '../config/home.js';
import type { ResolvedConfig } from '../config/load.js';
import { loadCheckedConfig } from '../gateway/check-config.js';
import { resolveMcpServers } from '../mcp/server-config.js';
import type { HomeGateway } from './host.js';
import type { Operations } from './index.js';
import { inProcessLink, type GatewayLink } from './link.js';
import type { GatewayHello, GatewayState } from './state.js';

export interface StartingGateway {
  /** The console's link: the config's view until the gateway runs, then the gateway's own. */
  link: GatewayLink;
  /** Loads the core and starts the gateway; from then on the link speaks for it. */
  start(): Promise<HomeGateway>;
}

/**
 * A console's gateway in its own process, drawn before it runs: the first frame comes from the
 * config alone (listener "starting", MCP servers "connecting", no jobs or history yet) while the
 * core loads and starts, then the gateway's snapshot replaces it and its events follow. The config
 * is read and checked here, so a broken config still fails before the console draws. Operations
 * called meanwhile wait for the gateway (and fail with its start error).
 */
export function startingGateway(home: HomeLayout, version: string): StartingGateway {
  const config = loadCheckedConfig(home);
  let host: HomeGateway['host'] | undefined;
  let resolveHost!: (started: HomeGateway['host']) => void;
  let rejectHost!: (error: unknown) => void;
  const ready = new Promise<HomeGateway['host']>((resolve, reject) => {
    resolveHost = resolve;
    rejectHost = reject;
  });
  const readyOperations = ready.then((started) => started.operations);
  // The start's caller reports a failed start; operations waiting meanwhile fail with it.
  ready.catch(() => {});
  readyOperations.catch(() => {});
  const hello = (): GatewayHello => host?.hello() ?? {
    pid: process.pid, home: home.root, version, mode: 'console', startedAtMs: null, webhookUrl: null, socketPath: home.controlSocket, tcpUrl: null,
  };

  const link: GatewayLink = {
    where: 'in-process',
    remote: false,
    operations: deferredOperations(() => host?.operations, readyOperations),
    hello,
    subscribe(handlers) {
      if (host) return inProcessLink(host).subscribe(handlers);
      handlers.onSnapshot(provisionalState(config));
      let unsubscribe: (() => void) | undefined;
      let closed = false;
      ready.then((started) => {
        if (!closed) unsubscribe = inProcessLink(started).subscribe(handlers);
      }, () => {});
      return () => {
        closed = true;
        unsubscribe?.();
      };
    },
    onStatus: () => () => {},
    close: async () => {},
  };

  return {
    link,
    async start() {
      try {
        const { startHomeGateway } = await import('./host.js');
        const started = await startHomeGateway(home, { mode: 'console', version });
        host = started.host;
        resolveHost(started.host);
        return started;
      } catch (error) {
        rejectHost(error);
        throw error;
      }
    },
  };
}

/** What the config alone says: the header, the routes and the MCP servers (connecting); the rest comes with the gateway. */
function provisionalState(config: ResolvedConfig): GatewayState {
  const now = Date.now();
  const servers = resolveMcpServers(config.values).servers.map((server) => ({
    name: server.name, status: server.enabled ? 'connecting' as const : 'disabled' as const, transport: server.transport, updatedAtMs: now,
    oauth: server.auth === 'oauth', trust: server.trust, skipped: [],
  }));
  return {
    gateway: {
      status: 'starting', pid: process.pid, home: config.home.root, startedAtMs: null,
      model: config.values.model?.provider ?? 'dry-run', modelName: config.values.model?.name ?? null, timezone: config.timezone, approvalsPending: 0,
      jobs: { jobs: 0, enabled: 0, running: [], nextRunAtMs: null },
      webhook: { enabled: config.webhook.enabled, url: null, routes: config.webhook.routeNames, subscriptions: [] },
      mcp: { servers: servers.map((server) => ({ ...server, toolCount: 0 })) },
      health: { status: 'ok', store: { fault: null, keptWrites: 0 }, log: { dropped: 0, fault: null } },
    },
    approvals: [], approvalHistory: [], grants: [], mcpServers: servers.map((server) => ({ ...server, tools: [] })), jobs: [],
    webhooks: [], outputs: [], logs: [], runsInFlight: [], failedDeliveries: 0,
  };
}

type Verb = (params: unknown) => Promise<unknown>;

/** Operations that wait for the gateway's until it runs, then are its own. */
function deferredOperations(current: () => Operations | undefined, ready: Promise<Operations>): Operations {
  const real = (operations: Operations, domain: string) => (operations as unknown as Record<string, Record<string, Verb>>)[domain]!;
  const domainOf = (domain: string) => new Proxy({}, {
    get(_target, verb) {
      const operations = current();
      if (operations) return real(operations, domain)[verb as string];
      if (typeof verb !== 'string' || verb === 'then') return undefined;
      return async (params: unknown) => real(await ready, domain)[verb]!(params);
    },
  });
  return new Proxy({}, {
    get(_target, domain) {
      const operations = current();
      if (operations) return real(operations, domain as string);
      if (typeof domain !== 'string' || domain === 'then') return undefined;
      return domainOf(domain);
    },
  }) as Operations;
}
