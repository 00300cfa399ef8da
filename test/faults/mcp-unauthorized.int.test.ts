import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerState } from '../../source/mcp/connection.js';
import { servers, startedManager, until } from '../helpers/mcp.js';
import { tempHome } from '../helpers/temp-home.js';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A loopback server that refuses everything with 401 and an HTML error page; counts the requests. */
async function refusingServer(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    request.resume();
    response.writeHead(401, { 'content-type': 'text/html', 'www-authenticate': 'Basic realm="intranet"' });
    response.end('<!doctype html><html><head><title>401</title></head><body><h1>401 Unauthorized</h1><p>Sign in first.</p></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests: () => requests };
}

describe('an MCP server answering 401 without auth: oauth (issue #18 item 15)', () => {
  it.each(['streamable-http', 'sse'] as const)('%s: one needs-login status with the hint, no retries, no HTML', async (transport) => {
    const home = tempHome();
    const peer = await refusingServer();
    const states: McpServerState[] = [];
    const { manager } = startedManager(home.root, { retry: true, backoff: { minMs: 10, maxMs: 20 }, onStatusChanged: (s) => states.push(s) });
    await manager.start(servers({ intranet: { url: peer.url, transport } }), { wait: true });

    const view = await until(() => manager.list().find((s) => s.status === 'needs-login'), 'needs-login');
    expect(view.reason).toBe('server intranet: the server answered 401 Unauthorized: set mcp_servers.intranet.auth to "oauth" and run: '
      + 'switchboard mcp login intranet, or set the credentials it expects in mcp_servers.intranet.headers (e.g. Authorization)');
    const seen = peer.requests();
    // With retries, the 10 ms backoff would have dialled again many times within this window.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(peer.requests()).toBe(seen);
    expect(states.map((s) => s.status)).toEqual(['connecting', 'needs-login']);
    for (const state of states) expect(state.reason ?? '').not.toMatch(/<[a-z!]/i);
  });
});
