import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CALLBACK_PATH, PINNED_CALLBACK_PORTS, type Checked } from './oauth-config.js';

export type PortChoice =
  | { kind: 'pinned' }
  | { kind: 'random'; why: string }
  /** `oauth.redirect_port`, or the port of a loopback `oauth.redirect_uri`. */
  | { kind: 'fixed'; port: number; path?: string };

export interface CallbackListener {
  port: number;
  /** Where the authorization server sends the browser back. */
  redirectUrl: string;
  /** True when one of 27890-27894 is held; false for a random or fixed port. */
  pinned: boolean;
  /** Why the port is random (an override, a registration on disk, all five pinned ports taken, ...). */
  randomBecause?: string;
  /** Resolves with the callback's query once a request (or a pasted URL) carries our `state`. */
  result: Promise<URLSearchParams>;
  /** A redirect URL pasted by the operator: same checks as a browser redirect. */
  offer(redirected: string): Checked<true>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * The loopback listener of one login (spec 3.2): a pinned port is bound at once and held until the
 * redirect arrives, so two logins never share one; when all five are taken the port is random.
 */
export async function openCallbackListener(choice: PortChoice, state: string): Promise<CallbackListener> {
  let settle!: (params: URLSearchParams) => void;
  const result = new Promise<URLSearchParams>((resolve) => (settle = resolve));
  let done = false;
  const path = choice.kind === 'fixed' && choice.path ? choice.path : CALLBACK_PATH;

  const accept = (params: URLSearchParams): Checked<true> => {
    if (done) return { ok: false, reason: 'this login already received its redirect' };
    if (params.get('state') !== state) return { ok: false, reason: 'the state parameter does not match this login (an old or forged redirect); start the login again' };
    if (!params.get('code') && !params.get('error')) return { ok: false, reason: 'the redirect carries neither code nor error' };
    done = true;
    settle(params);
    return { ok: true, value: true };
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const accepted = accept(url.searchParams);
    if (!accepted.ok) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Login not completed', accepted.reason));
      return;
    }
    const failed = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end(failed ? PAGE('Login failed', 'The authorization server refused the request; see the terminal.') : PAGE('Login complete', 'You can close this window and return to Switchboard.'));
  });

  let pinned = false;
  let randomBecause: string | undefined;
  if (choice.kind === 'pinned') {
    for (const port of PINNED_CALLBACK_PORTS) {
      if (await tryListen(server, port)) {
        pinned = true;
        break;
      }
    }
    if (!pinned) {
      randomBecause = `all of ports ${PINNED_CALLBACK_PORTS[0]}-${PINNED_CALLBACK_PORTS.at(-1)} are taken`;
      await listenOrThrow(server, 0);
    }
  } else if (choice.kind === 'random') {
    randomBecause = choice.why;
    await listenOrThrow(server, 0);
  } else {
    await listenOrThrow(server, choice.port);
  }
  const port = (server.address() as AddressInfo).port;
  void result.then(() => server.close());

  return {
    port,
    redirectUrl: `http://127.0.0.1:${port}${path}`,
    pinned,
    randomBecause,
    result,
    offer(redirected: string): Checked<true> {
      let url: URL;
      try {
        url = new URL(redirected.trim());
      } catch {
        return { ok: false, reason: 'that is not a URL; paste the whole address the browser was sent to (it contains code= and state=)' };
      }
      return accept(url.searchParams);
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function tryListen(server: http.Server, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, '127.0.0.1');
  });
}

async function listenOrThrow(server: http.Server, port: number): Promise<void> {
  if (!(await tryListen(server, port))) throw new Error(`callback port ${port} on 127.0.0.1 is already in use; free it or change oauth.redirect_port`);
}
