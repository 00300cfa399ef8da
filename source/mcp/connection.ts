import path from 'node:path';
import type { Logger } from 'pino';
import type { Tool } from '@modelcontextprotocol/client';
import type { ApprovalRequester } from '../agent/types.js';
import { createBackoff, DEFAULT_BACKOFF, type BackoffSettings } from './backoff.js';
import { callErrorMessage, connectFailure, connectionLost, credentialsNeeded, describeError, FatalConnectError, McpCallError, withoutHtml } from './connect-errors.js';
import { createHeadlessOAuth } from './headless-oauth.js';
import type { ResolvedMcpServer } from './server-config.js';
import type { SampleFn } from './server-requests.js';
import type { McpEra, McpSession } from './session.js';
import { createSessionOpener } from './session-opener.js';
import { createSessionUpkeep } from './session-upkeep.js';
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

/**
 * One server's connection: the state machine (connecting, ready, degraded, reconnecting with
 * backoff, recycled, failed, needs-login) and calls with timeouts. Opening a session is
 * session-opener.ts; keepalive and stdio recycling while it is up, session-upkeep.ts.
 */
export function createMcpConnection(deps: ConnectionDeps) {
  const { server, logger } = deps;
  const backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
  const pacing = createBackoff(backoff, deps.random);
  const stderr: StderrRing = createStderrRing(deps.logsDir && server.transport === 'stdio' ? path.join(deps.logsDir, 'mcp', `${server.name.replace(/[^A-Za-z0-9._-]/g, '_')}.log`) : undefined);
  let state: McpServerState = { name: server.name, status: server.enabled ? 'connecting' : 'disabled', transport: server.transport, updatedAtMs: deps.now() };
  let session: McpSession | undefined;
  let connecting: Promise<McpSession> | undefined;
  let stopped = false;
  let inFlight = 0;
  /** The one scheduled reconnect: a failure never adds a second (and a call never connects while it waits). */
  let retryTimer: NodeJS.Timeout | undefined;
  /** Where the current attempt's stderr starts: a failure quotes its own process's last lines. */
  let stderrMark = 0;
  let lastActivity = deps.now();
  const timers = new Set<NodeJS.Timeout>();

  const set = (status: McpServerStatus, reason?: string) => {
    state = { ...state, status, reason, era: session?.era ?? state.era, protocolVersion: session?.protocolVersion ?? state.protocolVersion, updatedAtMs: deps.now() };
    deps.onState(state);
  };
  const headlessOAuth = createHeadlessOAuth({ server, tokens: deps.tokens, logger, now: deps.now });
  const opener = createSessionOpener({
    server, stderr, headlessOAuth, hasTokenStore: deps.tokens !== undefined, approvals: deps.approvals, sample: deps.sample, now: deps.now, clientInfo: deps.clientInfo,
    onToolsChanged: (tools) => void discover(tools),
  });
  const upkeep = createSessionUpkeep({
    server, now: deps.now, current: () => session, inFlight: () => inFlight, lastActivity: () => lastActivity,
    keepaliveFailed: (current, error) => drop(current, `keepalive failed: ${describeError(error)}`),
    recycle: (reason) => void recycle(reason),
  });
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
          stderrMark = stderr.mark();
          const opened = await opener.open();
          if (stopped) {
            await opened.close();
            throw new McpCallError(`server ${server.name}: stopped`);
          }
          session = opened;
          const connectedAt = deps.now();
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
          upkeep.connected(connectedAt);
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
    upkeep.stop();
    const tail = stderrTail();
    fail(`connection closed${tail ? ` (stderr: ${tail})` : ''}`, true);
  }

  /** Closes a session that stopped working and counts it as a failure (keepalive, a lost connection). */
  function drop(current: McpSession, reason: string): void {
    if (session !== current) return;
    session = undefined;
    upkeep.stop();
    void current.close();
    fail(reason, true);
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

  async function recycle(reason: string): Promise<void> {
    const current = session;
    if (!current) return;
    session = undefined;
    upkeep.stop();
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
          if (connectionLost(error)) drop(current, `${label} failed: ${withoutHtml(describeError(error))}`);
          throw new McpCallError(callErrorMessage(server, label, error, signal));
        }
        // The transport already made its one refresh-and-retry: drop the session until a login.
        if (session === current) {
          session = undefined;
          upkeep.stop();
          void current.close();
        }
        awaitLogin(login.message);
        throw new McpCallError(`server ${server.name}: ${label} failed: ${login.message.replace(`server ${server.name}: `, '')}`);
      }
    } finally {
      inFlight -= 1;
      lastActivity = deps.now();
      upkeep.callEnded();
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
      upkeep.stop();
      const current = session ?? (await connecting?.catch(() => undefined));
      session = undefined;
      await current?.close();
      await opener.close();
      stderr.close();
    },
  };
}

export type McpConnection = ReturnType<typeof createMcpConnection>;
