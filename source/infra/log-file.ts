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
  /** Waits for a write in progress (a second at most), writes the rest once, closes the file. */
  close(): Promise<void>;
}

/** Buffered lines above this are dropped (and counted) rather than held while the disk is full. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** While writes fail, the file is tried again this often; lines in between are buffered. */
const RETRY_MS = 1000;

/**
 * logs/gateway.log, appended asynchronously. pino's own destination retries a failed synchronous
 * flush in a loop: on a full disk the gateway hung there, deaf to /health and SIGTERM (issue #18,
 * item 1). This one degrades instead: on an error the chunk being written is dropped and counted,
 * later lines are buffered up to a bound (then dropped and counted), the file is tried again every
 * second, and the first line written after a fault says how many lines were lost.
 */
export function createLogFile(file: string, clock: () => number = Date.now): LogFile {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let fd = -1;
  let buffered: string[] = [];
  let bufferedBytes = 0;
  let writing = false;
  let dropped = 0;
  let droppedSinceFault = 0;
  let fault: string | null = null;
  let retryAtMs = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let ended = false;
  let flushScheduled = false;
  let partial = false;
  let brokenLine = false;
  let idle: (() => void) | undefined;

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

  const succeeded = () => {
    fault = null;
    droppedSinceFault = 0;
  };

  const scheduleRetry = () => {
    if (retryTimer || ended) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      flush();
    }, Math.max(0, retryAtMs - clock()));
    retryTimer.unref();
  };

  const flush = (): void => {
    if (writing || ended || buffered.length === 0) return;
    if (fault !== null && clock() < retryAtMs) return scheduleRetry();
    if (!open()) {
      for (const text of buffered) drop(text);
      buffered = [];
      bufferedBytes = 0;
      return scheduleRetry();
    }
    const text = take();
    writing = true;
    fs.write(fd, text, null, 'utf8', (error, written) => {
      writing = false;
      idle?.();
      if (error) {
        drop(text);
        failed(error);
        // A chunk cut short by the disk: what follows starts on a line of its own.
        if (partial) brokenLine = true;
        partial = false;
      } else {
        succeeded();
        const rest = Buffer.byteLength(text) === written ? '' : Buffer.from(text).subarray(written).toString('utf8');
        partial = rest !== '';
        if (rest) {
          buffered.unshift(rest);
          bufferedBytes += rest.length;
        }
      }
      flush();
    });
  };

  return {
    write(chunk) {
      if (ended) {
        drop(chunk);
        return true;
      }
      if (bufferedBytes + chunk.length > MAX_BUFFERED_BYTES) {
        drop(chunk);
        return true;
      }
      buffered.push(chunk);
      bufferedBytes += chunk.length;
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(() => {
          flushScheduled = false;
          flush();
        });
      }
      return true;
    },
    flushSync() {
      if (writing || buffered.length === 0 || !open()) return;
      const text = take();
      try {
        const bytes = Buffer.from(text);
        const written = fs.writeSync(fd, bytes);
        succeeded();
        if (written < bytes.length) {
          drop(bytes.subarray(written).toString('utf8'));
          brokenLine = true;
        }
      } catch (error) {
        drop(text);
        failed(error);
      }
    },
    health: () => ({ dropped, fault }),
    async close() {
      ended = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (writing) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, 1000).unref();
        });
      }
      if (!writing) {
        this.flushSync();
        if (fd >= 0) fs.closeSync(fd);
        fd = -1;
      }
    },
  };
}
