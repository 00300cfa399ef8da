import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openIntakeJournal } from '../../source/webhooks/intake-journal.js';
import type { NewDelivery } from '../../source/store/webhook-deliveries.js';

const cleanups: Array<() => void> = [];
afterEach(() => { for (const cleanup of cleanups.splice(0).reverse()) cleanup(); });

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-journal-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'intake.journal');
}

const row = (n: number, body: Uint8Array = Buffer.from(JSON.stringify({ n }))): NewDelivery => ({
  route: 'gh', deliveryId: `id-${n}`, event: 'push', headers: { 'x-github-event': 'push' }, body, prompt: `p ${n}`,
  skills: n % 2 ? ['review'] : [], target: 'log', targetExtra: {}, receivedAtMs: 1_700_000_000_000 + n,
});

describe('the intake journal', () => {
  it('writes a turn\'s deliveries in one write, 0600, and reads them back whole, bodies byte for byte', async () => {
    const file = tempFile();
    const journal = openIntakeJournal(file);
    cleanups.push(() => journal.close());
    const binary = Buffer.from([0, 255, 10, 13, 0x7b, 0x22]);
    const written = [journal.append(row(1)), journal.append(row(2, binary)), journal.append(row(3))];
    expect(new Set(written).size).toBe(1); // one write for the turn
    expect(journal.end).toBe(0);
    expect(journal.tail).toBeGreaterThan(0);
    await written[0];
    expect(journal.end).toBe(journal.tail);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const { rows, offsets, next } = journal.read(0, 10);
    expect(next).toBe(journal.end);
    expect(offsets[0]).toBe(0);
    expect(rows.map((r) => ({ ...r, body: Buffer.from(r.body).toString('hex') }))).toEqual([row(1), row(2, binary), row(3)].map((r) => ({ ...r, body: Buffer.from(r.body).toString('hex') })));
    expect(journal.read(offsets[1]!, 1).rows[0]!.deliveryId).toBe('id-2');
  });

  it('after a crash, reading stops at a torn last frame, and the next write goes over it', async () => {
    const file = tempFile();
    const first = openIntakeJournal(file);
    await Promise.all([first.append(row(1)), first.append(row(2))]);
    const intact = first.end;
    first.close();
    // A write cut short: half a frame at the end, as a crash in the middle of write() leaves it.
    const torn = fs.readFileSync(file).subarray(0, 20);
    fs.appendFileSync(file, torn);

    const second = openIntakeJournal(file);
    cleanups.push(() => second.close());
    expect(second.end).toBe(intact);
    expect(second.read(0, 10).rows.map((r) => r.deliveryId)).toEqual(['id-1', 'id-2']);
    await second.append(row(3));
    expect(second.read(0, 10).rows.map((r) => r.deliveryId)).toEqual(['id-1', 'id-2', 'id-3']);
  });

  it('a frame whose bytes changed fails its checksum and ends what is read', async () => {
    const file = tempFile();
    const journal = openIntakeJournal(file);
    await Promise.all([journal.append(row(1)), journal.append(row(2))]);
    const second = journal.read(0, 10).offsets[1]!;
    journal.close();
    const bytes = fs.readFileSync(file);
    bytes[second + 20] = bytes[second + 20]! ^ 0xff;
    fs.writeFileSync(file, bytes);
    const reopened = openIntakeJournal(file);
    cleanups.push(() => reopened.close());
    expect(reopened.end).toBe(second);
    expect(reopened.read(0, 10).rows.map((r) => r.deliveryId)).toEqual(['id-1']);
  });

  it('keeps every field: non-ASCII text, headers, skills, deliver_extra, a replay, and a body larger than a slab among small ones', async () => {
    const journal = openIntakeJournal(tempFile());
    cleanups.push(() => journal.close());
    const full: NewDelivery = {
      ...row(1), route: 'gh-ü', deliveryId: 'id-😀', prompt: 'Überprüfe PR „42“ — 🚀', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'user-agent': 'GitHub-Hookshot/ä' },
      skills: ['review', 'triage'], target: 'telegram:42', targetExtra: { chat: 'ops', silent: true, thread: 7 }, replayOf: 'id-0',
    };
    const large = row(2, Buffer.alloc(300 * 1024, 0x61));
    await Promise.all([journal.append(full), journal.append(large), journal.append(row(3))]);
    const { rows } = journal.read(0, 10);
    expect(rows[0]).toEqual({ ...full, body: expect.anything() });
    expect(Buffer.from(rows[0]!.body).equals(Buffer.from(full.body))).toBe(true);
    expect(Buffer.from(rows[1]!.body).equals(Buffer.from(large.body))).toBe(true);
    expect(rows.map((r) => r.deliveryId)).toEqual(['id-😀', 'id-2', 'id-3']);
  });

  it('reads frames an earlier version wrote (the header as JSON): a journal left by a crash survives an upgrade', async () => {
    const file = tempFile();
    const { body, ...header } = row(1);
    const json = Buffer.from(JSON.stringify(header));
    const payload = Buffer.concat([Buffer.alloc(4), json, body]);
    payload.writeUInt32LE(json.length, 0);
    const head = Buffer.alloc(8);
    head.writeUInt32LE(payload.length, 0);
    head.writeUInt32LE(crc32(payload), 4);
    fs.writeFileSync(file, Buffer.concat([head, payload]), { mode: 0o600 });
    const journal = openIntakeJournal(file);
    cleanups.push(() => journal.close());
    await journal.append(row(2));
    expect(journal.read(0, 10).rows.map((r) => ({ ...r, body: Buffer.from(r.body).toString() }))).toEqual([row(1), row(2)].map((r) => ({ ...r, body: Buffer.from(r.body).toString() })));
  });

  it('truncate empties it; offsets start again at 0', async () => {
    const journal = openIntakeJournal(tempFile());
    cleanups.push(() => journal.close());
    await journal.append(row(1));
    journal.truncate();
    expect(journal.end).toBe(0);
    await journal.append(row(2));
    expect(journal.read(0, 10).rows.map((r) => r.deliveryId)).toEqual(['id-2']);
  });
});

/** A real full disk: a 64 KB tmpfs (needs root, as test/faults/disk-full does; skipped elsewhere). */
function smallDisk(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-journal-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  cleanups.push(() => {
    execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

describe('the intake journal on a full disk', () => {
  it('rejects the turn whose write fails (ENOSPC), keeps what was written, and writes again once there is room', async (context) => {
    const dir = smallDisk();
    if (!dir) return context.skip();
    const journal = openIntakeJournal(path.join(dir, 'intake.journal'));
    cleanups.push(() => journal.close());
    await journal.append(row(1));
    const before = journal.end;
    const filler = path.join(dir, 'filler');
    try {
      fs.writeFileSync(filler, Buffer.alloc(1024 * 1024));
    } catch {
      // the disk is full now
    }
    const big = Buffer.alloc(32 * 1024, 7);
    await expect(Promise.all([journal.append(row(2, big)), journal.append(row(3, big))])).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(journal.end).toBe(before);
    fs.rmSync(filler);
    await journal.append(row(4));
    expect(journal.read(0, 10).rows.map((r) => r.deliveryId)).toEqual(['id-1', 'id-4']);
  });
});
