import { describe, expect, it, vi } from 'vitest';
import { connectControl } from '../../source/control/client.js';
import { OPERATOR_ERROR_CODES } from '../../source/control/protocol.js';
import { OperatorError } from '../../source/operations/errors.js';
import { deferred, rawClient, startControlServer } from '../helpers/control.js';

describe('control server: calls', () => {
  it('answers a call through dispatch, with the client info', async () => {
    const seen: unknown[] = [];
    const { socketPath } = await startControlServer({
      dispatch: async (method, params, client) => {
        seen.push(client);
        return { echoed: params, method };
      },
    });
    const client = await connectControl({ socketPath });
    await expect(client.call('jobs.list', { limit: 3 })).resolves.toEqual({ echoed: { limit: 3 }, method: 'jobs.list' });
    expect(seen).toEqual([{ id: 1, transport: 'unix' }]);
    const hello = await client.hello();
    expect(hello).toMatchObject({ protocol: 1, pid: process.pid, version: 'test', mode: 'headless' });
    await client.close();
  });

  it('carries an OperatorError across with its code, message, hint and details', async () => {
    const { socketPath } = await startControlServer({
      dispatch: async () => {
        throw new OperatorError('not_found', 'No job named "nightly"', 'See the jobs: switchboard cron list', ['jobs: a, b']);
      },
    });
    const client = await connectControl({ socketPath });
    const error = await client.call('jobs.show', { name: 'nightly' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OperatorError);
    expect(error).toMatchObject({ code: 'not_found', message: 'No job named "nightly"', hint: 'See the jobs: switchboard cron list', details: ['jobs: a, b'] });
    await client.close();
  });

  it('maps every OperatorError code to its fixed JSON-RPC code on the wire', async () => {
    const { socketPath } = await startControlServer({
      dispatch: async (_method, params) => {
        throw new OperatorError((params as { code: OperatorError['code'] }).code, 'no');
      },
    });
    const raw = await rawClient(socketPath);
    const codes = Object.keys(OPERATOR_ERROR_CODES) as OperatorError['code'][];
    for (const [index, code] of codes.entries()) {
      raw.send({ jsonrpc: '2.0', id: index, method: 'x.fail', params: { code } });
      const reply = await raw.next();
      expect(reply).toEqual({ jsonrpc: '2.0', id: index, error: { code: OPERATOR_ERROR_CODES[code], message: 'no', data: { code } } });
    }
    expect(OPERATOR_ERROR_CODES).toEqual({ forbidden: -32001, invalid: -32002, unavailable: -32003, not_found: -32004, conflict: -32009, internal: -32603 });
  });

  it('answers -32601 for an unknown method, and built-in namespaces never reach dispatch', async () => {
    const dispatch = vi.fn(async () => 'reached');
    const { socketPath } = await startControlServer({ dispatch, hasMethod: (method) => method === 'jobs.list' });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'jobs.explode' });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32601, message: 'Method not found: jobs.explode', data: { code: 'not_found' } } });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'control.reboot' });
    expect(await raw.next()).toMatchObject({ id: 2, error: { code: -32601 } });
    raw.send({ jsonrpc: '2.0', id: 3, method: 'jobs.list' });
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 3, result: 'reached' });
    expect(dispatch).toHaveBeenCalledTimes(1);

    const client = await connectControl({ socketPath });
    await expect(client.call('nope.nothing')).rejects.toMatchObject({ code: 'not_found', message: 'Method not found: nope.nothing' });
    await client.close();
  });

  it('refuses malformed requests and built-in params with -32600 / -32602, and invalid from dispatch with -32002', async () => {
    const { socketPath } = await startControlServer({
      dispatch: async () => {
        throw new OperatorError('invalid', 'jobs.create: "schedule" is required');
      },
    });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { since: { epoch: 'e', seq: -1 } } });
    expect(await raw.next()).toMatchObject({ id: 1, error: { code: -32602, data: { code: 'invalid' } } });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'control.hello', params: [1] });
    expect(await raw.next()).toMatchObject({ id: 2, error: { code: -32602 } });
    raw.send({ jsonrpc: '2.0', id: 3, method: 'control.hello', params: 'x' });
    expect(await raw.next()).toMatchObject({ id: 3, error: { code: -32600 } });
    raw.send({ jsonrpc: '1.0', id: 4, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 4, error: { code: -32600, message: 'Invalid request: "jsonrpc" must be "2.0"' } });
    raw.send('[{"jsonrpc":"2.0","id":5,"method":"control.hello"}]\n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    raw.send({ jsonrpc: '2.0', id: { nested: true }, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    raw.send({ jsonrpc: '2.0', id: 6, method: 'jobs.create', params: {} });
    expect(await raw.next()).toMatchObject({ id: 6, error: { code: -32002, message: 'jobs.create: "schedule" is required', data: { code: 'invalid' } } });
  });

  it('answers a line that is not JSON with -32700 and keeps the connection', async () => {
    const { socketPath } = await startControlServer();
    const raw = await rawClient(socketPath);
    raw.send('this is not json\n');
    expect(await raw.next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    raw.send({ jsonrpc: '2.0', id: 7, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 7, result: { protocol: 1 } });
  });

  it('never answers a notification (a request without id)', async () => {
    const dispatched = deferred<string>();
    const { socketPath } = await startControlServer({ dispatch: async (method) => void dispatched.resolve(method) });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', method: 'jobs.touch' });
    raw.send({ jsonrpc: '2.0', method: 'no.such.builtin.result' });
    raw.send({ jsonrpc: '2.0', id: 1, method: 'control.hello' });
    expect(await raw.next()).toMatchObject({ id: 1 });
    expect(await dispatched.promise).toBe('jobs.touch');
  });

  it('answers -32603 with a generic message for a bug in dispatch, logging the detail but never sending it', async () => {
    const { socketPath, logger } = await startControlServer({
      dispatch: async () => {
        throw new TypeError('Cannot read properties of undefined (secret internals)');
      },
    });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'jobs.list' });
    const reply = await raw.next();
    expect(reply).toMatchObject({ id: 1, error: { code: -32603, data: { code: 'internal' } } });
    expect(JSON.stringify(reply)).not.toMatch(/secret internals|TypeError|at /);
    const logged = logger.entries.find((entry) => entry.level === 'error');
    expect(logged?.message).toBe('Control method jobs.list failed');
    expect((logged?.object.err as Error).message).toContain('secret internals');
  });

  it('answers -32603 when the gateway\'s hello fails, and keeps serving', async () => {
    const { socketPath } = await startControlServer({
      hello: () => {
        throw new Error('identity unavailable');
      },
    });
    const client = await connectControl({ socketPath });
    await expect(client.hello()).rejects.toMatchObject({ code: 'internal', message: 'Internal error in control.hello; the details are in the gateway log' });
    await expect(client.call('jobs.list')).resolves.toMatchObject({ method: 'jobs.list' });
    await client.close();
  });

  it('answers -32603 when a result cannot be serialized, and keeps serving', async () => {
    const { socketPath } = await startControlServer({ dispatch: async (method) => (method === 'x.big' ? { n: 1n } : 'fine') });
    const client = await connectControl({ socketPath });
    await expect(client.call('x.big')).rejects.toMatchObject({ code: 'internal' });
    await expect(client.call('x.ok')).resolves.toBe('fine');
    await client.close();
  });

  it('closes a connection that sends a 10 MB line, and keeps serving the others', async () => {
    const { socketPath, server } = await startControlServer();
    const other = await connectControl({ socketPath });
    const raw = await rawClient(socketPath);
    const reply = raw.next();
    const chunk = Buffer.alloc(256 * 1024, 'x');
    let stopped = false;
    void reply.finally(() => (stopped = true)).catch(() => {});
    for (let sent = 0; sent < 10 * 1024 * 1024 && !stopped && !raw.socket.destroyed; sent += chunk.length) {
      if (!raw.socket.write(chunk)) await new Promise((resolve) => raw.socket.once('drain', resolve).once('close', resolve));
    }
    expect(await reply).toMatchObject({ id: null, error: { code: -32600, message: 'Line longer than 1048576 bytes; connection closed' } });
    raw.socket.end();
    await raw.closed;
    await expect(other.call('jobs.list')).resolves.toMatchObject({ method: 'jobs.list' });
    await vi.waitFor(() => expect(server.clients()).toBe(1));
    await other.close();
  });

  it('drops a client that stops reading while events flood, and keeps serving the others', async () => {
    const maxBufferedBytes = 256 * 1024;
    const { socketPath, server, journal, logger } = await startControlServer({ maxBufferedBytes });
    const reader = await connectControl({ socketPath });
    let received = 0;
    await reader.subscribe({ onSnapshot: () => {}, onEvent: () => void (received += 1) });
    const stalled = await rawClient(socketPath);
    stalled.send({ jsonrpc: '2.0', id: 1, method: 'events.subscribe' });
    expect(await stalled.next()).toMatchObject({ id: 1, result: { mode: 'snapshot' } });
    stalled.socket.pause();

    const payload = 'y'.repeat(1024);
    let appended = 0;
    // A paused socket never reads the EOF, so the server's count and log say when it was dropped.
    const dropped = () => server.clients() === 1;
    while (!dropped() && appended < 40_000) {
      for (let i = 0; i < 20; i += 1, appended += 1) journal.append('test.flooded', { i: appended, payload });
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(dropped()).toBe(true);
    stalled.socket.resume();
    await stalled.closed;
    const warning = logger.entries.find((entry) => entry.message?.includes('stopped reading'));
    // What was queued for it when it was dropped: past the limit by less than one event.
    expect(warning?.object.bufferedBytes).toBeGreaterThan(maxBufferedBytes);
    expect(warning?.object.bufferedBytes).toBeLessThan(maxBufferedBytes + 2048);
    await vi.waitFor(() => expect(received).toBe(appended));
    await expect(reader.call('jobs.list')).resolves.toBeTruthy();
    expect(server.clients()).toBe(1);
    await reader.close();
  });

  it('discards the result for a client that disconnected mid-call', async () => {
    const gate = deferred<string>();
    const started = deferred<void>();
    const { socketPath, server, logger } = await startControlServer({
      dispatch: async () => {
        started.resolve();
        return gate.promise;
      },
    });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'runs.start' });
    await started.promise;
    raw.socket.destroy();
    await raw.closed;
    // The server cannot tell a peer that left from one that half-closed until it writes the answer.
    gate.resolve('late');
    await vi.waitFor(() => expect(server.clients()).toBe(0));
    expect(logger.entries.filter((entry) => entry.level !== 'info')).toEqual([]);
    const client = await connectControl({ socketPath });
    await expect(client.call('runs.start')).resolves.toBe('late');
    await client.close();
  });

  it('answers a client that half-closes after its requests, then closes', async () => {
    const gate = deferred<string>();
    const { socketPath, server } = await startControlServer({ dispatch: async () => gate.promise });
    const raw = await rawClient(socketPath);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'jobs.slow' });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'control.hello' });
    raw.socket.end();
    expect(await raw.next()).toMatchObject({ id: 2 });
    await vi.waitFor(() => expect(raw.socket.writableFinished).toBe(true));
    gate.resolve('late but delivered');
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 1, result: 'late but delivered' });
    await raw.closed;
    await vi.waitFor(() => expect(server.clients()).toBe(0));
  });

  it('rejects a pending call with unavailable when the connection is lost, and calls after it at once', async () => {
    const started = deferred<void>();
    const { socketPath, server } = await startControlServer({
      dispatch: async () => {
        started.resolve();
        return new Promise(() => {});
      },
    });
    const client = await connectControl({ socketPath });
    const call = client.call('runs.start');
    await started.promise;
    await server.stop();
    await expect(call).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('connection lost') });
    await expect(client.call('jobs.list')).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('not connected') });
    await expect(connectControl({ socketPath })).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('no socket file') });
  });

  it('stops reading from a client with 64 requests in flight until one finishes', async () => {
    const gate = deferred<string>();
    let dispatched = 0;
    const { socketPath } = await startControlServer({
      dispatch: async () => {
        dispatched += 1;
        return gate.promise;
      },
    });
    const raw = await rawClient(socketPath);
    let answers = 0;
    raw.socket.on('data', (chunk: Buffer) => void (answers += chunk.toString().split('\n').length - 1));
    for (let id = 1; id <= 64; id += 1) raw.send({ jsonrpc: '2.0', id, method: 'runs.start' });
    await vi.waitFor(() => expect(dispatched).toBe(64));
    // Built-in methods answer at once, so any answer here would mean the server kept reading.
    const hello = { jsonrpc: '2.0', id: 'hello', method: 'control.hello', params: { padding: 'p'.repeat(4096) } };
    for (let i = 0; i < 10_000 && raw.socket.writableLength === 0; i += 1) {
      raw.send(hello);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(raw.socket.writableLength).toBeGreaterThan(0);
    expect(answers).toBe(0);
    gate.resolve('done');
    await vi.waitFor(() => expect(raw.socket.writableLength).toBe(0));
    await vi.waitFor(() => expect(answers).toBeGreaterThan(64));
    expect(dispatched).toBe(64);
  });

  it('serves many clients at once', async () => {
    const { socketPath, server } = await startControlServer({ dispatch: async (_method, params) => (params as { n: number }).n * 2 });
    const clients = await Promise.all(Array.from({ length: 40 }, () => connectControl({ socketPath })));
    await vi.waitFor(() => expect(server.clients()).toBe(40));
    const results = await Promise.all(clients.flatMap((client, c) => Array.from({ length: 10 }, (_, i) => client.call<number>('math.double', { n: c * 10 + i }))));
    expect(results).toEqual(Array.from({ length: 400 }, (_, n) => n * 2));
    await Promise.all(clients.map((client) => client.close()));
    await vi.waitFor(() => expect(server.clients()).toBe(0));
  });
});
