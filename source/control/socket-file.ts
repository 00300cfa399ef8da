/**
 * The Unix socket file's life: refuse a live one, replace a stale one, appear with mode 0600 from
 * the first instant, and disappear on stop only if it is still ours.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError } from '../config/errors.js';

/** sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = process.platform === 'darwin' ? 103 : 107;
const KNOCK_TIMEOUT_MS = 1_000;

/** Throws when `socketPath` cannot be ours: too long, not a socket, or a gateway answers on it. */
export async function checkSocketPath(socketPath: string): Promise<void> {
  checkLength(socketPath, socketPath);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stat.isSocket()) {
    throw new ConfigError('CONTROL_SOCKET_PATH_TAKEN', `${socketPath} exists and is not a socket`, 'Move or delete that file, then start the gateway again.');
  }
  const state = await knock(socketPath);
  if (state === 'live') {
    throw new ConfigError('CONTROL_SOCKET_IN_USE', `Another gateway is answering on ${socketPath}`, 'Stop that gateway first (switchboard status shows its pid), or use another home (--home).');
  }
  // 'stale': a dead gateway's file; listen() below replaces it.
}

/**
 * Listens in a fresh private folder, sets mode 0600 and only then renames the socket into place,
 * so there is no moment when `socketPath` accepts connections with a wider mode (no process-wide
 * umask change either). The rename also replaces a stale socket atomically. Returns its inode.
 */
export async function listenPrivately(server: net.Server, socketPath: string): Promise<number> {
  checkLength(path.join(path.dirname(socketPath), '.cXXXXXX', 's'), socketPath);
  const folder = fs.mkdtempSync(path.join(path.dirname(socketPath), '.c'));
  const temporary = path.join(folder, 's');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(temporary, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(temporary, 0o600);
    fs.renameSync(temporary, socketPath);
    return fs.lstatSync(socketPath).ino;
  } catch (error) {
    server.close();
    throw error;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Unlinks the socket file unless something else has replaced it since we created it. */
export function removeSocketFile(socketPath: string, inode: number): void {
  try {
    if (fs.lstatSync(socketPath).ino === inode) fs.unlinkSync(socketPath);
  } catch {
    // already gone
  }
}

function checkLength(candidate: string, socketPath: string): void {
  const bytes = Buffer.byteLength(candidate);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError('CONTROL_SOCKET_PATH_TOO_LONG', `Control socket path ${socketPath} is too long for a Unix socket (${bytes} bytes, at most ${MAX_SOCKET_PATH_BYTES})`,
      'Use a shorter home folder: --home or SWITCHBOARD_HOME.');
  }
}

function knock(socketPath: string): Promise<'live' | 'stale'> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const done = (state: 'live' | 'stale') => {
      socket.destroy();
      resolve(state);
    };
    socket.setTimeout(KNOCK_TIMEOUT_MS, () => done('live')); // accepted but silent, or a full backlog: someone is there
    socket.once('connect', () => done('live'));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') return done('stale');
      socket.destroy();
      reject(new ConfigError('CONTROL_SOCKET_UNUSABLE', `Cannot check ${socketPath}: ${error.message}`, 'Check the permissions of the home folder, or remove the file if no gateway runs.'));
    });
  });
}
