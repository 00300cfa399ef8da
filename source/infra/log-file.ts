import fs from 'node:fs';
import path from 'node:path';

/** What the log file could not take: lines dropped since start, and the error that is still happening. */
export interface LogFileHealth {
  dropped: number;
  /** The error of the last failed write (ENOSPC, EIO), until a write succeeds again. */
  fault: string | null;
}

export interface LogFile {
  /** pino's destination interface: takes one or more whole lines. Never blocks, never throws. */
  write(chunk: string): boolean;
  /** One synchronous attempt to write what is buffered; what fails is dropped and counted. */
  flushSync(): void;
  health(): LogFileHealth;
  /** Writes what is buffered once and closes the file. */
  close(): Promise<void>;
}

/** Buffered lines above this are dropped (and counted) rather than held while the disk is full. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** While writes fail, the file is tried again this often; lines in between are buffered. */
const RETRY_MS = 1000;

/**
 * logs/gateway.log. pino's own destination retries a failed synchronous flush in a loop: on a full
 * disk the gateway hung there, deaf to /health and SIGTERM (issue #18, item 1). This one degrades
 * instead: on an error the chunk being written is dropped and counted, later lines are buffered up
 * to a bound (then dropped and counted), the file is tried again every second, and the first line
 * written after a fault says how many lines were lost.
 *
 * The lines of one event-loop turn go out in one synchronous write at the end of the turn. A write
 * to a regular file is a copy into the page cache (5-9 µs here), the same kind of work SQLite does
 * on the event loop for every commit; `fs.write` through libuv's thread pool cost about 50 µs of
 * CPU per call (hand-off and wake-ups), about 5% of a webhook's run in the drain benchmark. A full
 * disk fails the write at once (ENOSPC), so it never blocks: it is the retry loop that hung.
 */
export function createLogFile(file: string, clock: () => number = Date.now): LogFile {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd = -1;
  let buffered: string[] = [];
  let bufferedBytes = 0;
  let dropped = 0;
  let droppedSinceFault = 0;
  let fault: string | null = null;
  let retryAtMs = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let ended = false;
  let flushScheduled = false;
  let brokenLine = false;

  const open = (): boolean => {
    if (fd >= 0) return true;
    try {
      fd = fs.openSync(file, 'a', 0o600);
      return true;
    } catch (error) {
      failed(error);
      return false;
    }
  };

  const lineCount = (text: string) => {
    let lines = 0;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) lines += 1;
    return lines || 1;
  };

  const drop = (text: string) => {
    const lines = lineCount(text);
    dropped += lines;
    droppedSinceFault += lines;
  };

  const failed = (error: unknown) => {
    fault = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    retryAtMs = clock() + RETRY_MS;
  };

  /** After a fault: one line, in pino's shape, saying what was lost. */
  const recoveredLine = (): string => {
    const line = JSON.stringify({ level: 40, time: new Date(clock()).toISOString(), pid: process.pid,
      msg: `${droppedSinceFault} log line(s) dropped while logs/gateway.log could not be written (${fault})` });
    return `${line}\n`;
  };

  const take = (): string => {
    let text = buffered.join('');
    buffered = [];
    bufferedBytes = 0;
    if (fault !== null && droppedSinceFault > 0) text = recoveredLine() + text;
    if (brokenLine) text = `\n${text}`;
    brokenLine = false;
    return text;
  };

  const scheduleRetry = () => {
    if (retryTimer || ended) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      flush();
    }, Math.max(0, retryAtMs - clock()));
    retryTimer.unref();
  };

  /** One write of what is buffered; `force` ignores the retry delay (close, and an exit's last flush). */
  const flush = (force = false): void => {
    if (buffered.length === 0) return;
    if (!force && fault !== null && clock() < retryAtMs) return scheduleRetry();
    if (!open()) {
      for (const text of buffered) drop(text);
      buffered = [];
      bufferedBytes = 0;
      return scheduleRetry();
    }
    const text = take();
    try {
      const bytes = Buffer.from(text);
      const written = fs.writeSync(fd, bytes);
      fault = null;
      droppedSinceFault = 0;
      if (written < bytes.length) {
        // Cut short by the disk: the rest is dropped, and what follows starts on a line of its own.
        drop(bytes.subarray(written).toString('utf8'));
        brokenLine = true;
      }
    } catch (error) {
      drop(text);
      failed(error);
    }
  };

  return {
    write(chunk) {
      if (ended || bufferedBytes + chunk.length > MAX_BUFFERED_BYTES) {
        drop(chunk);
        return true;
      }
      buffered.push(chunk);
      bufferedBytes += chunk.length;
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(() => {
          flushScheduled = false;
          if (!ended) flush();
        });
      }
      return true;
    },
    flushSync: () => flush(true),
    health: () => ({ dropped, fault }),
    async close() {
      if (ended) return;
      ended = true;
      if (retryTimer) clearTimeout(retryTimer);
      flush(true);
      if (fd >= 0) fs.closeSync(fd);
      fd = -1;
    },
  };
}
