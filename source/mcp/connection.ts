import path from 'node:path';
import type { Logger } from 'pino';
import type { Tool } from '@modelcontextprotocol/client';
import type { ApprovalRequester } from '../agent/types.js';
import { createHttpClient, type HttpClient } from './http-fetch.js';
import { createBackoff, DEFAULT_BACKOFF, type BackoffSettings } from './backoff.js';
import { callErrorMessage, connectFailure, connectionLost, credentialsNeeded, describeError, FatalConnectError, McpCallError, withoutHtml } from './connect-errors.js';
import { createHeadlessOAuth } from './headless-oauth.js';
import { preflight } from './preflight.js';
import type { ResolvedMcpServer } from './server-config.js';
import { clientCapabilities, installServerRequestHandlers, type SampleFn } from './server-requests.js';
import type { McpEra, McpSession } from './session.js';
import type { TokenStores } from './token-store.js';
import { createStderrRing, type StderrRing } from './stderr-ring.js';

/**
 * `needs-login`: an `auth: oauth` server without usable tokens, or any HTTP server answering 401/403;
 * no retries until a login, a reconnect or a config change (the reason carries the hint).
 */
export type McpServerStatus = 'disabled' | 'connecting' | 'ready' | 'degraded' | 'reconnecting' | 'recycled' | 'failed' | 'needs-login';

export interface McpServerState {
  name: string;
  status: McpServerStatus;
  /** Why the server is not ready (failed, degraded, recycled). */
  reason?: string;
  era?: McpEra;
  protocolVersion?: string;
  transport: ResolvedMcpServer['transport'];
  updatedAtMs: number;
}

/** What the catalog needs after a (re)connect or a tools/list_changed. */
export interface McpDiscovery {
  tools: Tool[];
  resources: boolean;
  prompts: boolean;
}

export interface ConnectionDeps {
  server: ResolvedMcpServer;
  logger: Logger;
  logsDir?: string;
  /** Where `auth: oauth` servers' tokens live: `<home>/mcp-tokens`, or PostgreSQL in cluster mode. */
  tokens?: TokenStores;
  approvals?: ApprovalRequester;
  sample?: SampleFn;
  now: () => number;
  onState(state: McpServerState): void;
  onDiscovery(discovery: McpDiscovery): void;
  /** Reconnect after failures (gateway); `mcp list`/`mcp test` connect once. Default true. */
  retry?: boolean;
  random?: () => number;
  /** Reconnect pacing (backoff.ts): 1 s doubling to 60 s, `failed` after 5 in a row, then every 5 minutes. */
  backoff?: Partial<BackoffSettings>;
  clientInfo?: { name: string; version: string };
}

/** How often a `needs-login` server looks for tokens written by a login in another process. */
const LOGIN_CHECK_MS = 2000;

/** One server's connection: connect, keepalive, backoff reconnect, stdio recycling, calls with timeouts. */
export function createMcpConnection(deps: ConnectionDeps) {
  const { server, logger } = deps;
  const backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
  const pacing = createBackoff(backoff, deps.random);
  const stderr: StderrRing = createStderrRing(deps.logsDir && server.transport === 'stdio' ? path.join(deps.logsDir, 'mcp', `${server.name.replace(/[^A-Za-z0-9._-]/g, '_')}.log`) : undefined);
  let state: McpServerState = { name: server.name, status: server.enabled ? 'connecting' : 'disabled', transport: server.transport, updatedAtMs: deps.now() };
  let session: McpSession | undefined;
  let http: HttpClient | undefined;
  let connecting: Promise<McpSession> | undefined;
  let stopped = false;
  let inFlight = 0;
  /** The one scheduled reconnect: a failure never adds a second (and a call never connects while it waits). */
  let retryTimer: NodeJS.Timeout | undefined;
  /** Where the current attempt's stderr starts: a failure quotes its own process's last lines. */
  let stderrMark = 0;
  let usePing = true;
  let lastActivity = deps.now();
  let connectedAt = 0;
  let recyclePending = false;
  const timers = new Set<NodeJS.Timeout>();
  let keepaliveTimer: NodeJS.Timeout | undefined;
  let lifecycleTimer: NodeJS.Timeout | undefined;

  const set = (status: McpServerStatus, reason?: string) => {
    state = { ...state, status, reason, era: session?.era ?? state.era, protocolVersion: session?.protocolVersion ?? state.protocolVersion, updatedAtMs: deps.now() };
    deps.onState(state);
  };
  const headlessOAuth = createHeadlessOAuth({ server, tokens: deps.tokens, logger, now: deps.now });
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    timers.add(timer);
    return timer;
  };
  const scheduleRetry = (ms: number) => {
    if (retryTimer) {
      clearTimeout(retryTimer);
      timers.delete(retryTimer);
    }
    retryTimer = later(ms, () => {
      retryTimer = undefined;
      reconnect();
    });
  };
  const stderrTail = () => stderr.since(stderrMark).filter((line) => line.trim() !== '').slice(-3).join(' | ');

  async function connectOnce(): Promise<McpSession> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`connect_timeout of ${server.connectTimeoutMs / 1000} s reached`)), server.connectTimeoutMs);
    try {
      if (server.transport !== 'stdio') {
        if (!http) {
          const made = await createHttpClient(server);
          if (!made.ok) throw new FatalConnectError(made.reason);
          http = made.value;
        }
        if (server.transport === 'streamable-http' && !server.skipPreflight && server.auth !== 'oauth') {
          const checked = await preflight({ server: server.name, url: server.url!, headers: server.headers, fetch: http.fetch });
          if (!checked.ok) throw new FatalConnectError(checked.reason);
        }
      }
      if (server.auth === 'oauth' && !deps.tokens) throw new FatalConnectError(`server ${server.name}: auth: oauth needs a token store (mcp-tokens)`);
      const requestDeps = { server, approvals: deps.approvals, sample: deps.sample, now: deps.now };
      // Loaded on the first connect: a gateway without MCP servers never loads the MCP SDK.
      const { openSession } = await import('./session.js');
      stderrMark = stderr.mark();
      const oauth = await headlessOAuth.transportAuth(http);
      const opened = openSession({
        server, stderr, http, signal: controller.signal, oauth,
        capabilities: clientCapabilities(requestDeps),
        setup: (client) => installServerRequestHandlers(client, requestDeps),
        clientInfo: deps.clientInfo ?? { name: 'switchboard', version: '0.1.0' },
        listChanged: { tools: { autoRefresh: true, onChanged: (error, tools) => { if (!error && tools) void discover(tools); } } },
      });
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }));
      opened.then((s) => { if (controller.signal.aborted) void s.close(); }, () => {});
      return await Promise.race([opened, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function discover(listed?: Tool[]): Promise<void> {
    const current = session;
    if (!current) return;
    const caps = current.client.getServerCapabilities() ?? {};
    const tools = listed ?? (caps.tools ? (await current.client.listTools(undefined, { timeout: server.connectTimeoutMs })).tools : []);
    deps.onDiscovery({ tools, resources: Boolean(caps.resources), prompts: Boolean(caps.prompts) });
  }

  /** Connects (or joins a connect in progress); on success the server is ready and its tools discovered. */
  function ensureSession(): Promise<McpSession> {
    if (session) return Promise.resolve(session);
    if (stopped) return Promise.reject(new McpCallError(`server ${server.name}: stopped`));
    if (!connecting) {
      if (state.status !== 'reconnecting') set('connecting');
      connecting = (async () => {
        try {
          const opened = await connectOnce();
          if (stopped) {
            await opened.close();
            throw new McpCallError(`server ${server.name}: stopped`);
          }
          session = opened;
          usePing = true;
          connectedAt = deps.now();
          lastActivity = connectedAt;
          pacing.connected(connectedAt);
          try {
            await discover();
          } catch (error) {
            // One failure, reported by our caller; onclose is not watched yet, so it is not counted twice.
            session = undefined;
            void opened.close();
            throw error;
          }
          opened.client.onclose = () => onClosed(opened);
          set('ready');
          scheduleKeepalive();
          scheduleLifecycle();
          logger.info(`MCP server ${server.name} ready (${server.transport}, ${opened.era} era${opened.protocolVersion ? ` ${opened.protocolVersion}` : ''})`);
          return opened;
        } finally {
          connecting = undefined;
        }
      })();
    }
    return connecting;
  }

  function onClosed(closed: McpSession): void {
    if (session !== closed || stopped) return;
    session = undefined;
    clearKeepalive();
    const tail = stderrTail();
    fail(`connection closed${tail ? ` (stderr: ${tail})` : ''}`, true);
  }

  /** A failure after being connected (or a failed attempt): backoff reconnect, then failed with a 5-minute retry. */
  function fail(reason: string, wasReady: boolean): void {
    if (stopped) return;
    if (!reason.startsWith(`server ${server.name}:`)) reason = `server ${server.name}: ${reason}`;
    if (deps.retry === false) {
      set('failed', reason);
      return;
    }
    const step = pacing.failed(deps.now());
    if (step.exhausted) {
      set('failed', `${reason}; ${step.attempt} failed attempts in a row, retrying every ${Math.round(backoff.failedRetryMs / 60_000)} minutes (R in the console or switchboard mcp reconnect tries now)`);
    } else {
      set(wasReady ? 'degraded' : 'reconnecting', `${reason}; attempt ${step.attempt} of ${backoff.failuresBeforeFailed}, next in ${(step.delayMs / 1000).toFixed(1)} s`);
    }
    scheduleRetry(step.delayMs);
  }

  function reconnect(): void {
    if (stopped || session || connecting || state.status === 'needs-login') return;
    if (state.status !== 'reconnecting') set('reconnecting', state.reason);
    ensureSession().catch((error) => handleConnectError(error));
  }

  /**
   * `needs-login` until tokens arrive: the console's `l` reconnects by itself, and a login from another
   * process or node (`switchboard mcp login`) is seen when it rewrites the tokens (checked every 2 s).
   */
  function awaitLogin(reason: string): void {
    set('needs-login', reason);
    if (server.auth !== 'oauth') return; // new headers come with a config change, which replaces this connection
    const changed = headlessOAuth.tokensChangedFromNow();
    const check = async () => {
      if (stopped || state.status !== 'needs-login') return;
      if (!(await (await changed)())) return void later(LOGIN_CHECK_MS, () => void check());
      if (stopped || state.status !== 'needs-login') return;
      set('reconnecting', `server ${server.name}: new tokens ${deps.tokens?.kind === 'postgres' ? 'in the database' : 'on disk'}`);
      reconnect();
    };
    later(LOGIN_CHECK_MS, () => void check());
  }

  function handleConnectError(error: unknown): void {
    const login = headlessOAuth.needsLogin(error);
    if (login) {
      awaitLogin(login.message);
      return;
    }
    const credentials = server.auth === 'oauth' ? undefined : credentialsNeeded(server.name, error);
    if (credentials) {
      awaitLogin(credentials);
      return;
    }
    const reason = connectFailure(server, error, server.transport === 'stdio' ? stderrTail() : '');
    if (error instanceof FatalConnectError) set('failed', reason);
    else fail(reason, false);
  }

  function scheduleKeepalive(): void {
    clearKeepalive();
    keepaliveTimer = setInterval(() => void keepalive(), server.keepaliveMs);
    keepaliveTimer.unref();
  }
  function clearKeepalive(): void {
    if (keepaliveTimer) clearInterval(keepaliveTimer);
    keepaliveTimer = undefined;
  }

  async function keepalive(): Promise<void> {
    const current = session;
    if (!current || inFlight > 0) return;
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
      if (session !== current || inFlight > 0) return;
      session = undefined;
      clearKeepalive();
      void current.close();
      fail(`keepalive failed: ${describeError(error)}`, true);
    }
  }

  function scheduleLifecycle(): void {
    if (lifecycleTimer) clearInterval(lifecycleTimer);
    lifecycleTimer = undefined;
    if (server.transport !== 'stdio' || (server.idleTimeoutMs <= 0 && server.maxLifetimeMs <= 0)) return;
    const step = Math.max(50, Math.min(...[server.idleTimeoutMs, server.maxLifetimeMs].filter((v) => v > 0)) / 4);
    lifecycleTimer = setInterval(() => checkLifecycle(), step);
    lifecycleTimer.unref();
  }

  function checkLifecycle(): void {
    if (!session) return;
    const now = deps.now();
    if (server.maxLifetimeMs > 0 && now - connectedAt >= server.maxLifetimeMs) recyclePending = true;
    const idle = server.idleTimeoutMs > 0 && inFlight === 0 && now - lastActivity >= server.idleTimeoutMs;
    if ((recyclePending || idle) && inFlight === 0) void recycle(recyclePending ? 'max_lifetime_seconds reached' : 'idle_timeout_seconds reached');
  }

  async function recycle(reason: string): Promise<void> {
    const current = session;
    if (!current) return;
    session = undefined;
    recyclePending = false;
    clearKeepalive();
    if (lifecycleTimer) clearInterval(lifecycleTimer);
    lifecycleTimer = undefined;
    await current.close();
    set('recycled', `${reason}; starts again on the next call`);
    logger.info(`MCP server ${server.name} recycled: ${reason}`);
  }

  /** Runs one request against the session, starting a recycled server first. */
  async function use<T>(label: string, fn: (session: McpSession, signal: AbortSignal | undefined) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (stopped) throw new McpCallError(`server ${server.name}: stopped`);
    if (!server.enabled) throw new McpCallError(`server ${server.name}: disabled (enabled: false)`);
    inFlight += 1;
    lastActivity = deps.now();
    try {
      // A scheduled reconnect keeps its pace: calls do not spawn or dial in between.
      if (retryTimer && !session) throw new McpCallError(`server ${server.name}: not connected (${state.status}): ${state.reason ?? 'waiting to reconnect'}`);
      let current: McpSession;
      try {
        current = await ensureSession();
      } catch (error) {
        if (!connecting && !retryTimer && state.status !== 'needs-login') handleConnectError(error);
        throw new McpCallError(`server ${server.name}: not connected: ${withoutHtml(describeError(error))}`);
      }
      try {
        return await fn(current, signal);
      } catch (error) {
        const login = headlessOAuth.needsLogin(error);
        if (!login) {
          // An HTTP server gone (refused, reset): the call says so, and so does the server's state
          // now, with a reconnect, rather than at the next keepalive minutes later.
          if (connectionLost(error) && session === current) {
            session = undefined;
            clearKeepalive();
            void current.close();
            fail(`${label} failed: ${withoutHtml(describeError(error))}`, true);
          }
          throw new McpCallError(callErrorMessage(server, label, error));
        }
        // The transport already made its one refresh-and-retry: drop the session until a login.
        if (session === current) {
          session = undefined;
          clearKeepalive();
          void current.close();
        }
        awaitLogin(login.message);
        throw new McpCallError(`server ${server.name}: ${label} failed: ${login.message.replace(`server ${server.name}: `, '')}`);
      }
    } finally {
      inFlight -= 1;
      lastActivity = deps.now();
      if (recyclePending && inFlight === 0) checkLifecycle();
    }
  }

  return {
    get state(): McpServerState {
      return state;
    },
    server,
    stderrLines: () => stderr.lines(),
    /** First connect. Resolves once ready or failed (never throws). */
    async start(): Promise<void> {
      if (!server.enabled) {
        set('disabled');
        return;
      }
      try {
        await ensureSession();
      } catch (error) {
        handleConnectError(error);
      }
    },
    use,
    callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal) {
      return use(`tool ${tool}`, (s, sig) => s.client.callTool({ name: tool, arguments: args }, { timeout: server.timeoutMs, signal: sig }), signal);
    },
    async stop(): Promise<void> {
      stopped = true;
      retryTimer = undefined;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      clearKeepalive();
      if (lifecycleTimer) clearInterval(lifecycleTimer);
      const current = session ?? (await connecting?.catch(() => undefined));
      session = undefined;
      await current?.close();
      await http?.close().catch(() => {});
      stderr.close();
    },
  };
}

export type McpConnection = ReturnType<typeof createMcpConnection>;
