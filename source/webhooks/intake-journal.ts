import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { NewDelivery } from '../store/webhook-deliveries.js';
import { headerBytesAtMost, readHeader, writeHeader } from './journal-header.js';

/**
 * The intake journal: an append-only file of accepted deliveries not yet in state.db (see
 * burst-intake.ts for when it is used). One frame per delivery:
 *
 *   u32 length of the payload | u32 CRC-32 of the payload | payload
 *   payload = u32 length of the header | header (journal-header.ts: every field but the body) | body bytes
 *
 * Frames are written at `end` (positional writes, one per event-loop turn), so a write that failed
 * part-way (a full disk) is overwritten by the next one; after a crash, reading stops at the first
 * frame that is short or fails its CRC, which is one no sender was told was accepted.
 * Durability is state.db's (WAL, synchronous = NORMAL): the bytes are in the kernel before the 202,
 * so they survive the process, not a power cut.
 */
export interface IntakeJournal {
  /** Queues a delivery for this turn's write; settles once it is written (rejects if the write failed). */
  append(row: NewDelivery): Promise<void>;
  /** Reads written deliveries from `offset` up to `max` of them (with each one's offset); `next` is where the next read starts. */
  read(offset: number, max: number): { rows: NewDelivery[]; offsets: number[]; next: number };
  /** Where the next frame is written: everything before it is written. */
  readonly end: number;
  /** Where the next appended frame will be (after those waiting for this turn's write). */
  readonly tail: number;
  /** Drops every frame (all of them are in state.db by now). */
  truncate(): void;
  close(): void;
}

const FRAME_HEAD = 8;
/** A turn's frames share one allocation (a new one when it is full), reused once they are written. */
const SLAB_BYTES = 256 * 1024;

/** The journal lives beside state.db (the same disk, the same directory's permissions). */
export function intakeJournalFile(stateDb: string): string {
  return path.join(path.dirname(stateDb), 'intake.journal');
}

export function openIntakeJournal(file: string): IntakeJournal {
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  fs.fchmodSync(fd, 0o600); // webhook bodies, as in state.db
  let end = intactLength(fd);
  /** This turn's frames, whole and one after another in the slab (earlier slabs' parts in `filled`). */
  let slab = Buffer.allocUnsafe(SLAB_BYTES);
  let slabUsed = 0;
  let filled: Uint8Array[] = [];
  /** Bytes appended this turn, not yet written. */
  let buffered = 0;
  let flush: { done: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined;

  const write = () => {
    const pending = flush!;
    const buffers = [...filled, slab.subarray(0, slabUsed)];
    const size = buffered;
    flush = undefined;
    filled = [];
    // Written synchronously below (or dropped): the slab is free again for the next turn.
    slabUsed = 0;
    buffered = 0;
    try {
      let written = 0;
      // writev may write part of the list; the rest follows from where it stopped.
      while (written < size) written += fs.writevSync(fd, written === 0 ? buffers : remaining(buffers, written), end + written);
      end += size;
      pending.resolve();
    } catch (error) {
      pending.reject(error);
    }
  };

  return {
    append(row) {
      const { body } = row;
      // The whole frame goes into this turn's slab (one checksum, one buffer to write); a new slab when it is full.
      const most = FRAME_HEAD + 4 + headerBytesAtMost(row) + body.length;
      if (slabUsed + most > slab.length) {
        if (slabUsed > 0) filled.push(slab.subarray(0, slabUsed));
        slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, most));
        slabUsed = 0;
      }
      const at = slabUsed;
      const headerAt = at + FRAME_HEAD + 4;
      const headerEnd = writeHeader(slab, headerAt, row);
      slab.writeUInt32LE(headerEnd - headerAt, at + FRAME_HEAD);
      slab.set(body, headerEnd);
      const frameEnd = headerEnd + body.length;
      slab.writeUInt32LE(frameEnd - at - FRAME_HEAD, at);
      slab.writeUInt32LE(crc32(slab.subarray(at + FRAME_HEAD, frameEnd)), at + 4);
      slabUsed = frameEnd;
      buffered += frameEnd - at;
      if (!flush) {
        let resolve!: () => void;
        let reject!: (error: unknown) => void;
        const done = new Promise<void>((ok, fail) => { resolve = ok; reject = fail; });
        flush = { done, resolve, reject };
        setImmediate(write);
      }
      return flush.done;
    },
    read(offset, max) {
      const rows: NewDelivery[] = [];
      const offsets: number[] = [];
      let at = offset;
      while (rows.length < max && at < end) {
        const frame = readFrame(fd, at, end);
        if (!frame) break;
        rows.push(frame.row);
        offsets.push(at);
        at = frame.next;
      }
      return { rows, offsets, next: at };
    },
    get end() {
      return end;
    },
    get tail() {
      return end + buffered;
    },
    truncate() {
      fs.ftruncateSync(fd, 0);
      end = 0;
    },
    close() {
      fs.closeSync(fd);
    },
  };
}

function remaining(buffers: Uint8Array[], skip: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const buffer of buffers) {
    if (skip >= buffer.length) skip -= buffer.length;
    else {
      rest.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
  }
  return rest;
}

/** One frame at `at`, or undefined when it is short or corrupt (the torn end of a failed write). */
function readFrame(fd: number, at: number, limit: number): { row: NewDelivery; next: number } | undefined {
  if (at + FRAME_HEAD > limit) return undefined;
  const head = Buffer.alloc(FRAME_HEAD);
  if (fs.readSync(fd, head, 0, FRAME_HEAD, at) < FRAME_HEAD) return undefined;
  const length = head.readUInt32LE(0);
  if (length < 4 || at + FRAME_HEAD + length > limit) return undefined;
  const payload = Buffer.alloc(length);
  if (fs.readSync(fd, payload, 0, length, at + FRAME_HEAD) < length || crc32(payload) !== head.readUInt32LE(4)) return undefined;
  const headerLength = payload.readUInt32LE(0);
  if (4 + headerLength > length) return undefined;
  try {
    const header = readHeader(payload, 4, 4 + headerLength);
    return { row: { ...header, body: payload.subarray(4 + headerLength) }, next: at + FRAME_HEAD + length };
  } catch {
    return undefined;
  }
}

/** The length of the intact frames at the start of the file: a torn end is written over. */
function intactLength(fd: number): number {
  const size = fs.fstatSync(fd).size;
  let at = 0;
  for (;;) {
    const frame = readFrame(fd, at, size);
    if (!frame) return at;
    at = frame.next;
  }
}
