import fs from 'node:fs';

/** What waits for a slow reader; past it, new text is dropped (and counted) until the reader catches up. */
const MAX_WAITING_BYTES = 1024 * 1024;
/** How soon a write the reader was not ready for is tried again. */
const RETRY_MS = 10;
/** At close, how long the last text may wait for the reader. */
const CLOSE_WAIT_MS = 500;

export interface NonBlockingOut {
  write(text: string): void;
  /** At close: what waits goes out, waiting at most half a second for the reader. */
  flushSync(): void;
}

/**
 * Text to a descriptor (the headless gateway's stderr) that never stalls the event loop. Under
 * systemd, stderr is a socket that journald reads, and a pipe under a supervisor: non-blocking, so a
 * reader that falls behind makes a write fail with EAGAIN. pino's synchronous destination then put
 * the whole gateway to sleep for 100 ms and tried again, in a loop, while webhooks waited. Here the
 * text that did not go out waits (1 MB at most) and is tried again 10 ms later; past that, lines are
 * dropped, counted, and `droppedNote` says how many once the reader has caught up. gateway.log has
 * every line. A reader gone for good (EPIPE) ends the output quietly.
 */
export function createNonBlockingOut(fd: number, droppedNote: (lines: number) => string): NonBlockingOut {
  let waiting: Buffer[] = [];
  let waitingBytes = 0;
  let droppedLines = 0;
  let gone = false;
  let retry: NodeJS.Timeout | undefined;

  const countLines = (text: string) => {
    let lines = 0;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) lines += 1;
    return lines || 1;
  };
  const enqueue = (text: string) => {
    const bytes = Buffer.from(text);
    waiting.push(bytes);
    waitingBytes += bytes.length;
  };
  const later = () => {
    retry ??= setTimeout(() => {
      retry = undefined;
      drain();
    }, RETRY_MS).unref();
  };
  /** Writes what waits, in order, until the reader is not ready (true when all went out); then tries again later unless told not to. */
  const drain = (retryLater = true): boolean => {
    while (waiting.length > 0) {
      const head = waiting[0]!;
      let written: number;
      try {
        written = fs.writeSync(fd, head);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          if (retryLater) later();
          return false;
        }
        gone = true; // EPIPE, EBADF: nobody reads it any more
        waiting = [];
        waitingBytes = 0;
        return true;
      }
      waitingBytes -= written;
      if (written < head.length) waiting[0] = head.subarray(written);
      else waiting.shift();
    }
    if (droppedLines > 0) {
      enqueue(droppedNote(droppedLines));
      droppedLines = 0;
      return drain(retryLater);
    }
    return true;
  };

  return {
    write(text) {
      if (gone) return;
      if (waitingBytes + text.length > MAX_WAITING_BYTES) {
        droppedLines += countLines(text);
        return;
      }
      enqueue(text);
      if (retry === undefined) drain(); // else the retry writes it, after what came first
    },
    flushSync() {
      clearTimeout(retry);
      retry = undefined;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let waited = 0; !drain(false) && waited < CLOSE_WAIT_MS; waited += RETRY_MS) Atomics.wait(pause, 0, 0, RETRY_MS);
    },
  };
}
