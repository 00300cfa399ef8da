import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectControl, probeControl } from '../../source/control/client.js';
import { createEventJournal } from '../../source/control/journal.js';
import { createControlServer } from '../../source/control/server.js';
import { memoryLogger, startControlServer, track } from '../helpers/control.js';
import { tempHome } from '../helpers/temp-home.js';

function serverAt(socketPath: string) {
  return track(createControlServer({
    socketPath,
    journal: createEventJournal(),
    logger: memoryLogger(),
    dispatch: async () => 'second',
    snapshot: () => ({}),
    hello: () => ({ which: 'second' }),
  }));
}

/** A socket file whose process died without cleaning up: what a killed gateway leaves behind. */
async function staleSocket(socketPath: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  expect(fs.lstatSync(socketPath).isSocket()).toBe(true);
}

describe('control server: the socket file', () => {
  it('is created with mode 0600, leaves no temporary folder, and is removed on stop', async () => {
    const { socketPath, server } = await startControlServer();
    expect(fs.lstatSync(socketPath).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(socketPath)).filter((name) => name.startsWith('.c'))).toEqual([]);
    expect(server.address()).toEqual({ socketPath });
    await server.stop();
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it('replaces a stale socket file left by a dead gateway', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const socketPath = path.join(home.root, 'control.sock');
    await staleSocket(socketPath);
    await expect(probeControl(socketPath, 500)).resolves.toBeUndefined();
    const server = serverAt(socketPath);
    await server.start();
    expect(fs.lstatSync(socketPath).mode & 0o777).toBe(0o600);
    await expect(probeControl(socketPath, 2_000)).resolves.toMatchObject({ protocol: 1, which: 'second' });
  });

  it('never steals a live socket: a second server fails and the first keeps serving', async () => {
    const { socketPath } = await startControlServer();
    const second = serverAt(socketPath);
    await expect(second.start()).rejects.toMatchObject({ code: 'CONTROL_SOCKET_IN_USE', message: `Another gateway is answering on ${socketPath}` });
    const client = await connectControl({ socketPath });
    await expect(client.hello()).resolves.toMatchObject({ version: 'test' });
    await client.close();
  });

  it('refuses a path that holds something other than a socket, and leaves it alone', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const socketPath = path.join(home.root, 'control.sock');
    fs.writeFileSync(socketPath, 'notes');
    await expect(serverAt(socketPath).start()).rejects.toMatchObject({ code: 'CONTROL_SOCKET_PATH_TAKEN' });
    expect(fs.readFileSync(socketPath, 'utf8')).toBe('notes');
  });

  it('refuses a path too long for a Unix socket, naming it', async () => {
    const home = tempHome();
    const socketPath = path.join(home.root, 'x'.repeat(100), 'control.sock');
    await expect(serverAt(socketPath).start()).rejects.toMatchObject({ code: 'CONTROL_SOCKET_PATH_TOO_LONG', message: expect.stringContaining(socketPath) });
  });

  it('probeControl says whether a gateway answers', async () => {
    const { socketPath } = await startControlServer();
    await expect(probeControl(socketPath)).resolves.toMatchObject({ protocol: 1, pid: process.pid });
    await expect(probeControl(`${socketPath}.missing`)).resolves.toBeUndefined();
  });

  it('probeControl gives up on a socket that accepts but never answers', async () => {
    const home = tempHome();
    fs.mkdirSync(home.root, { recursive: true });
    const socketPath = path.join(home.root, 'silent.sock');
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    try {
      await expect(probeControl(socketPath, 300)).resolves.toBeUndefined();
    } finally {
      silent.close();
    }
  });
});
