import type { ResolvedMcpServer } from './server-config.js';
import type { McpSession } from './session.js';

export interface SessionUpkeepDeps {
  server: ResolvedMcpServer;
  now: () => number;
  /** The connected session, if any. */
  current(): McpSession | undefined;
  /** Calls in flight: a keepalive or a recycle never cuts one short. */
  inFlight(): number;
  /** When the last call started or ended. */
  lastActivity(): number;
  keepaliveFailed(session: McpSession, error: unknown): void;
  /** A stdio server reached `idle_timeout` or `max_lifetime`: close it until the next call. */
  recycle(reason: string): void;
}

/**
 * What a connected session needs while it is up: a keepalive every `keepalive` (ping in the legacy
 * era, falling back to tools/list for servers without ping) and, for stdio servers, recycling after
 * `idle_timeout` or `max_lifetime`, deferred until no call is in flight.
 */
export function createSessionUpkeep(deps: SessionUpkeepDeps) {
  const { server } = deps;
  let usePing = true;
  let connectedAt = 0;
  let recyclePending = false;
  let keepaliveTimer: NodeJS.Timeout | undefined;
  let lifecycleTimer: NodeJS.Timeout | undefined;

  async function keepalive(): Promise<void> {
    const current = deps.current();
    if (!current || deps.inFlight() > 0) return;
    const options = { timeout: Math.min(server.keepaliveMs, 30_000) };
    try {
      if (usePing && current.era === 'legacy') {
        try {
          await current.client.ping(options);
          return;
        } catch (error) {
          if ((error as { code?: unknown }).code !== -32601) throw error;
          usePing = false;
        }
      }
      await current.client.listTools(undefined, { ...options, cacheMode: 'bypass' });
    } catch (error) {
      if (deps.current() !== current || deps.inFlight() > 0) return;
      deps.keepaliveFailed(current, error);
    }
  }

  function checkLifecycle(): void {
    if (!deps.current()) return;
    const now = deps.now();
    if (server.maxLifetimeMs > 0 && now - connectedAt >= server.maxLifetimeMs) recyclePending = true;
    if (deps.inFlight() > 0) return;
    const idle = server.idleTimeoutMs > 0 && now - deps.lastActivity() >= server.idleTimeoutMs;
    if (recyclePending || idle) deps.recycle(recyclePending ? 'max_lifetime_seconds reached' : 'idle_timeout_seconds reached');
  }

  function stop(): void {
    if (keepaliveTimer) clearInterval(keepaliveTimer);
    if (lifecycleTimer) clearInterval(lifecycleTimer);
    keepaliveTimer = undefined;
    lifecycleTimer = undefined;
  }

  return {
    /** A session is up: start its keepalive and, for stdio servers with limits, its lifecycle checks. */
    connected(at: number): void {
      stop();
      usePing = true;
      connectedAt = at;
      recyclePending = false;
      keepaliveTimer = setInterval(() => void keepalive(), server.keepaliveMs);
      keepaliveTimer.unref();
      if (server.transport !== 'stdio' || (server.idleTimeoutMs <= 0 && server.maxLifetimeMs <= 0)) return;
      const step = Math.max(50, Math.min(...[server.idleTimeoutMs, server.maxLifetimeMs].filter((v) => v > 0)) / 4);
      lifecycleTimer = setInterval(() => checkLifecycle(), step);
      lifecycleTimer.unref();
    },
    /** The session is gone (closed, failed, recycled, stopped). */
    stop,
    /** A call ended: a recycle that waited for it happens now. */
    callEnded(): void {
      if (recyclePending && deps.inFlight() === 0) checkLifecycle();
    },
  };
}
