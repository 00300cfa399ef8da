/**
 * The gateway's control channel: JSON-RPC 2.0 over newline-delimited JSON on a Unix socket
 * (mode 0600: the file mode is the access control) and, optionally, on a TCP port guarded by a
 * token. Generic over `dispatch`; see docs/control-protocol.md.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError } from '../config/errors.js';
import { handleConnection, type ClientInfo, type ControlConnection, type ControlLogger, type Dispatch } from './connection.js';
import type { EventJournal } from './journal.js';
import type { ControlEvent, EventView } from './protocol.js';
import { checkSocketPath, listenPrivately, removeSocketFile } from './socket-file.js';
import { isLoopbackHost } from './tcp-guard.js';

export type { ClientInfo, ControlLogger, Dispatch };

export interface ControlTcpSettings {
  host: string;
  port: number;
  token?: string;
}

export interface ControlServerDeps {
  socketPath: string;
  tcp?: ControlTcpSettings;
  /** Every method that is not built in (`control.*`, `events.*`). Throw OperatorError to fail. */
  dispatch: Dispatch;
  /** When given, methods it rejects get -32601 without reaching `dispatch`. */
  hasMethod?: (method: string) => boolean;
  /** Synchronous, so it matches the journal's current seq exactly. */
  snapshot: () => unknown;
  journal: EventJournal;
  /** Named views a subscriber may ask for (`events.subscribe` with `view`), e.g. what a console folds. */
  views?: Readonly<Record<string, EventView>>;
  /** The gateway's identity for `control.hello`: pid, version, home, mode, webhookUrl, startedAtMs... */
  hello: () => object;
  logger: ControlLogger;
  /** Longest accepted request line. Default 1 MiB. */
  maxLineBytes?: number;
  /** Bytes queued for a client that is not reading before it is dropped. Default 8 MiB. */
  maxBufferedBytes?: number;
  /** How long a TCP client with a token may stay connected without `control.auth`. Default 10 s. */
  authTimeoutMs?: number;
  /** Called when the number of event subscribers changes (cluster mode relays events only while some node is watched). */
  subscribersChanged?: (count: number) => void;
}

export interface ControlServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Connected clients, authenticated or not. */
  clients(): number;
  /** Subscribed consoles (`operator: true`): someone is there to decide approvals. */
  operators(): number;
  address(): { socketPath: string; tcpUrl?: string };
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export function createControlServer(deps: ControlServerDeps): ControlServer {
  const { logger, journal } = deps;
  const connections = new Set<ControlConnection>();
  /** Each subscriber and the view it asked for (`undefined`: every event, whole). */
  const subscribers = new Map<ControlConnection, string | undefined>();
  const operators = new Set<ControlConnection>();
  let unixServer: net.Server | undefined;
  let tcpServer: net.Server | undefined;
  let tcpUrl: string | undefined;
  let socketInode: number | undefined;
  let stopListening: (() => void) | undefined;
  let nextClientId = 1;

  const accept = (socket: net.Socket, transport: ClientInfo['transport'], token?: string) => {
    const client: ClientInfo = { id: nextClientId++, transport };
    if (transport === 'tcp' && socket.remoteAddress) client.remoteAddress = socket.remoteAddress;
    const connection = handleConnection(socket, {
      client,
      token,
      maxLineBytes: deps.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      maxBufferedBytes: deps.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      authTimeoutMs: deps.authTimeoutMs ?? 10_000,
      logger,
      dispatch: deps.dispatch,
      hasMethod: deps.hasMethod,
      hello: deps.hello,
      snapshot: deps.snapshot,
      journal,
      ...(deps.views ? { views: deps.views } : {}),
      setSubscribed: (which, subscribed, operator, view) => {
        const before = subscribers.size;
        if (subscribed) subscribers.set(which, view);
        else subscribers.delete(which);
        if (subscribers.size !== before) deps.subscribersChanged?.(subscribers.size);
        // Listening from the first subscriber on, not from start: a journal that keeps events only once
        // listened to (the gateway's) then keeps nothing while no client could resume from it.
        if (subscribed && unixServer) stopListening ??= journal.listen(broadcast);
        if (subscribed && operator) operators.add(which);
        else operators.delete(which);
      },
    });
    connections.add(connection);
    socket.on('close', () => connections.delete(connection));
  };

  /** One `event` line; '' when the view skips the event, or (logged) when it cannot be made. */
  const lineOf = (event: ControlEvent, view: EventView | undefined): string => {
    try {
      const shown = view ? view(event) : event;
      return shown ? `${JSON.stringify({ jsonrpc: '2.0', method: 'event', params: shown })}\n` : '';
    } catch (error) {
      logger.error({ err: error, type: event.type }, 'Gateway event could not be serialized for control subscribers; skipped');
      return '';
    }
  };
  // Serialized once per event and view, whatever the number of subscribers.
  const broadcast = (event: ControlEvent) => {
    if (subscribers.size === 0) return;
    const lines = new Map<string | undefined, string>();
    for (const [subscriber, view] of subscribers) {
      let line = lines.get(view);
      if (line === undefined) lines.set(view, (line = lineOf(event, view === undefined ? undefined : deps.views?.[view])));
      if (line !== '') subscriber.sendLine(line);
    }
  };

  const stop = async () => {
    stopListening?.();
    stopListening = undefined;
    for (const connection of connections) connection.destroy();
    await Promise.all([closeServer(unixServer), closeServer(tcpServer)]);
    if (socketInode !== undefined) removeSocketFile(deps.socketPath, socketInode);
    unixServer = undefined;
    tcpServer = undefined;
    tcpUrl = undefined;
    socketInode = undefined;
  };

  return {
    async start() {
      if (unixServer) throw new Error('Control server already started');
      const tcp = checkTcp(deps.tcp);
      fs.mkdirSync(path.dirname(deps.socketPath), { recursive: true, mode: 0o700 });
      await checkSocketPath(deps.socketPath);
      unixServer = net.createServer({ allowHalfOpen: true }, (socket) => accept(socket, 'unix'));
      socketInode = await listenPrivately(unixServer, deps.socketPath);
      if (tcp) {
        try {
          tcpServer = net.createServer({ allowHalfOpen: true }, (socket) => accept(socket, 'tcp', tcp.token));
          tcpUrl = await listenTcp(tcpServer, tcp);
        } catch (error) {
          await stop();
          throw error;
        }
      }
      logger.info({ socketPath: deps.socketPath, tcpUrl }, 'Control channel listening');
    },
    stop,
    clients: () => connections.size,
    operators: () => operators.size,
    address: () => (tcpUrl ? { socketPath: deps.socketPath, tcpUrl } : { socketPath: deps.socketPath }),
  };
}

/** The server's own guard, for callers that skip resolveControl(): no open port without a token. */
function checkTcp(tcp: ControlTcpSettings | undefined): ControlTcpSettings | undefined {
  if (!tcp) return undefined;
  const token = tcp.token === '' ? undefined : tcp.token;
  if (!token && !isLoopbackHost(tcp.host)) {
    throw new ConfigError('CONTROL_TOKEN_REQUIRED', `Refusing to open the control channel on control.host ${tcp.host} (not a loopback address) without a token`,
      'Set control.token_env to the name of an environment variable that holds a long random token, or set control.host to 127.0.0.1.');
  }
  return token ? { ...tcp, token } : { host: tcp.host, port: tcp.port };
}

function listenTcp(server: net.Server, tcp: ControlTcpSettings): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${tcp.host}:${tcp.port}`;
      reject(error.code === 'EADDRINUSE'
        ? new ConfigError('CONTROL_PORT_IN_USE', `Control channel cannot listen on ${where}: the port is in use`, 'Stop what holds it, or change control.port in config.json.')
        : new ConfigError('CONTROL_LISTEN_FAILED', `Control channel cannot listen on ${where}: ${error.message}`, 'Check control.host and control.port in config.json.'));
    });
    server.listen(tcp.port, tcp.host, () => {
      const address = server.address() as net.AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`tcp://${host}:${address.port}`);
    });
  });
}

function closeServer(server: net.Server | undefined): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => server.close(() => resolve()));
}
