import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNonBlockingOut } from '../../source/infra/nonblocking-out.js';
import { waitUntil } from '../helpers/webhooks.js';

const cleanups: Array<() => void> = [];
afterEach(() => { for (const cleanup of cleanups.splice(0).reverse()) cleanup(); });

/** A connected Unix socket pair, as journald's stderr socket is: the writer's descriptor, and a reader that reads only when told. */
async function slowReader() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-nonblocking-'));
  const socketPath = path.join(dir, 'stderr.sock');
  let received = '';
  let reader: net.Socket | undefined;
  const server = net.createServer((socket) => {
    reader = socket;
    socket.pause(); // a reader that falls behind
    socket.on('data', (chunk: Buffer) => { received += chunk.toString('utf8'); });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const writer = net.connect(socketPath);
  await new Promise<void>((resolve) => writer.once('connect', resolve));
  await waitUntil(() => reader !== undefined, 5_000, 'the reader');
  cleanups.push(() => { writer.destroy(); reader?.destroy(); server.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  const fd = (writer as unknown as { _handle: { fd: number } })._handle.fd;
  return { fd, writer, received: () => received, read: () => reader!.resume() };
}

describe('stderr that is read too slowly', () => {
  it('never stalls the writer: what the reader is not ready for waits (1 MB), the rest is dropped and counted, in order once it reads', async () => {
    const { fd, received, read } = await slowReader();
    const out = createNonBlockingOut(fd, (lines) => `dropped ${lines}\n`);
    cleanups.push(() => out.flushSync()); // no retry left for a later test's socket on the same descriptor number
    const line = (n: number) => `line ${String(n).padStart(6, '0')} ${'x'.repeat(1000)}\n`;
    // The reader reads only after the loop: a writer that waits for it (pino's synchronous destination
    // slept 100 ms per EAGAIN and tried again, forever) never gets past the loop.
    for (let n = 0; n < 3000; n += 1) out.write(line(n)); // about 3 MB: more than the socket's buffer and the 1 MB that may wait
    read();
    await waitUntil(() => received().includes('dropped '), 10_000, 'the note of what was dropped');
    const lines = received().trimEnd().split('\n');
    const note = lines.pop()!;
    const shown = lines.map((each) => Number(each.slice(5, 11)));
    expect(shown).toEqual(shown.map((_, index) => index)); // the first lines, whole and in order, none twice
    expect(shown.length).toBeGreaterThan(1000);
    expect(note).toBe(`dropped ${3000 - shown.length}`);
    out.write('after\n'); // the reader caught up: lines go out again
    await waitUntil(() => received().endsWith('after\n'), 5_000, 'a line after the drop');
  });

  it('writes everything, in order, to a reader that keeps up; and stops quietly once the reader is gone', async () => {
    const { fd, writer, received, read } = await slowReader();
    read();
    const out = createNonBlockingOut(fd, (lines) => `dropped ${lines}\n`);
    for (let n = 0; n < 200; n += 1) out.write(`line ${n}\n`);
    out.flushSync();
    await waitUntil(() => received().split('\n').length === 201, 5_000, 'every line');
    expect(received()).toBe(Array.from({ length: 200 }, (_, n) => `line ${n}\n`).join(''));
    writer.destroy();
    expect(() => { out.write('nobody reads this\n'); out.flushSync(); }).not.toThrow();
  });
});
