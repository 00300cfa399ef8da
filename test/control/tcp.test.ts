import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connectControl, type ControlStatus } from '../../source/control/client.js';
import { isLoopbackHost, tokenMatches } from '../../source/control/tcp-guard.js';
import { rawClient, startControlServer } from '../helpers/control.js';
import { tempHome } from '../helpers/temp-home.js';

const TOKEN = 'correct-horse-battery-staple-0123456789';

function hostPort(tcpUrl: string | undefined) {
  const url = new URL(tcpUrl!);
  return { host: url.hostname, port: Number(url.port) };
}

describe('control server over TCP', () => {
  it('serves on 127.0.0.1 without a token', async () => {
    const { server } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0 } });
    const { tcpUrl } = server.address();
    expect(tcpUrl).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const client = await connectControl({ url: tcpUrl! });
    await expect(client.hello()).resolves.toMatchObject({ protocol: 1 });
    await expect(client.call('jobs.list', { a: 1 })).resolves.toEqual({ method: 'jobs.list', params: { a: 1 } });
    await client.close();
  });

  it('refuses to start on a non-loopback host without a token, naming the settings, and leaves no socket file', async () => {
    const socketPath = path.join(tempHome().root, 'control.sock');
    const attempt = startControlServer({ socketPath, tcp: { host: '0.0.0.0', port: 0 } });
    await expect(attempt).rejects.toMatchObject({ code: 'CONTROL_TOKEN_REQUIRED', message: expect.stringContaining('control.host 0.0.0.0'), hint: expect.stringContaining('control.token_env') });
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it('with a token: a request before control.auth is refused and the connection closed', async () => {
    const { server } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0, token: TOKEN } });
    const raw = await rawClient(hostPort(server.address().tcpUrl));
    raw.send({ jsonrpc: '2.0', id: 1, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32001, data: { code: 'forbidden' } } });
    await raw.closed;

    const statuses: ControlStatus[] = [];
    const client = await connectControl({ url: server.address().tcpUrl!, onStatus: (status) => void statuses.push(status) });
    await expect(client.call('jobs.list')).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('control.auth') });
    await vi.waitFor(() => expect(statuses).toEqual(['connected', 'disconnected']));
  });

  it('with a token: a wrong or missing token is refused and the connection closed', async () => {
    const { server, logger } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0, token: TOKEN } });
    const target = hostPort(server.address().tcpUrl);
    for (const params of [{ token: 'wrong' }, {}, undefined]) {
      const raw = await rawClient(target);
      raw.send({ jsonrpc: '2.0', id: 1, method: 'control.auth', params });
      expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32001, data: { code: 'forbidden' } } });
      await raw.closed;
    }
    await expect(connectControl({ ...target, token: `${TOKEN}x` })).rejects.toMatchObject({ code: 'forbidden', message: 'Wrong token; connection closed' });
    expect(JSON.stringify(logger.entries)).not.toContain(TOKEN);
    await vi.waitFor(() => expect(server.clients()).toBe(0));
  });

  it('with a token: the right one opens every method, and is compared in constant time', async () => {
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    const { server } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0, token: TOKEN } });
    const client = await connectControl({ url: server.address().tcpUrl!, token: TOKEN });
    expect(compare).toHaveBeenCalledTimes(1);
    const [left, right] = compare.mock.calls[0]! as [Buffer, Buffer];
    expect([left.length, right.length]).toEqual([32, 32]); // sha256 of each side, whatever their lengths
    await expect(client.hello()).resolves.toMatchObject({ protocol: 1 });
    await expect(client.call('jobs.list')).resolves.toMatchObject({ method: 'jobs.list' });
    const subscribed = await client.subscribe({ onSnapshot: () => {}, onEvent: () => {} });
    await subscribed.unsubscribe();
    await client.close();
    compare.mockRestore();
  });

  it('closes a TCP connection that never authenticates', async () => {
    const { server } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0, token: TOKEN }, authTimeoutMs: 100 });
    const raw = await rawClient(hostPort(server.address().tcpUrl));
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32001, message: 'No control.auth within 100 ms; connection closed' } });
    await raw.closed;
  });

  it('keeps Unix socket clients trusted when TCP needs a token', async () => {
    const { socketPath } = await startControlServer({ tcp: { host: '127.0.0.1', port: 0, token: TOKEN } });
    const client = await connectControl({ socketPath });
    await expect(client.call('jobs.list')).resolves.toMatchObject({ method: 'jobs.list' });
    await client.close();
  });

  it('rejects a malformed control URL', async () => {
    await expect(connectControl({ url: 'http://127.0.0.1:1' })).rejects.toMatchObject({ code: 'invalid', message: expect.stringContaining('tcp://host:port') });
  });
});

describe('tcp guards', () => {
  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '::ffff:10.0.0.1', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('compares tokens of any length without throwing', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN, 'short')).toBe(false);
    expect(tokenMatches(TOKEN, `${TOKEN}${TOKEN}`)).toBe(false);
    expect(tokenMatches(TOKEN, '')).toBe(false);
  });
});
