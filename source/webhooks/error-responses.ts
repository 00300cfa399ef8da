import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhookRequestRecord } from './types.js';

/**
 * Every error answer of the webhook listener has one JSON shape: `error` (short, stable), `message`
 * (what failed and what to do) and `route` when the request named one. These handlers only run on
 * the error paths: the accepted request's path is untouched.
 */
export interface ErrorBody {
  error: string;
  message: string;
  route?: string;
}

export function errorBody(error: string, message: string, route?: string): ErrorBody {
  return route === undefined ? { error, message } : { error, message, route };
}

const ROUTE_IN_REQUEST_LINE = /^[A-Z]+ \/webhooks\/([^\s/?#]{1,100})/;

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a control byte in a header, headers
 * too large, a broken request line): answered on the raw socket, recorded when the request line names a route.
 */
export function clientErrorHandler(onOutcome: (record: WebhookRequestRecord) => void, now: () => number) {
  return function handle(error: ConnectionError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const [status, text] = timedOut ? [408, 'Request Timeout'] : tooLarge ? [431, 'Request Header Fields Too Large'] : [400, 'Bad Request'];
    const raw: unknown = error.rawPacket; // a Buffer at run time (Fastify's type describes its JSON form)
    const encoded = Buffer.isBuffer(raw) ? ROUTE_IN_REQUEST_LINE.exec(raw.toString('latin1', 0, 200))?.[1] : undefined;
    const route = encoded === undefined ? undefined : safeDecode(encoded);
    const parse = error.message.replace(/^Parse Error: /, '');
    const why = timedOut ? 'the request did not arrive in time' : tooLarge ? 'its headers are too large'
      : error.code === 'HPE_INVALID_HEADER_TOKEN' ? `a header holds a character HTTP does not allow (${parse}): control characters are refused`
        : `it is not valid HTTP (${parse})`;
    const body = JSON.stringify(errorBody(text, `${route === undefined ? 'The request' : `Request for route "${route}"`} refused before routing: ${why}`, route));
    if (route !== undefined) {
      onOutcome({ route, event: '-', deliveryId: '-', outcome: 'bad_request', status, latencyMs: 0, reason: why, atMs: now() });
    }
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
}

/** Unknown paths and methods, and errors outside the webhook routes (a bad URL, /health failing). */
export function installErrorResponses(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => reply.code(404).send(errorBody('Not found', `No endpoint ${request.method} ${request.url.slice(0, 200)}: webhooks are POST /webhooks/<route>, health is GET /health`)));
  app.setErrorHandler((error: FastifyError, request, reply) => rootError(error, request, reply));
}

/** Fastify's `frameworkErrors` option: a URL it cannot decode. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.code(400).send(errorBody('Bad request', `The URL cannot be decoded (${error.message}); webhooks are POST /webhooks/<route>`));
}

function rootError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) {
    request.log.error({ err: error }, 'Webhook listener request failed');
    return reply.code(500).send(errorBody('Internal error', 'The listener failed on this request; see logs/gateway.log'));
  }
  return reply.code(status).send(errorBody('Bad request', error.message));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
