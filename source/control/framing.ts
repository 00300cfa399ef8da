/**
 * Newline-delimited framing: bytes in, complete lines out. Written here rather than taken from a
 * JSON-RPC library because it is this small and those libraries bring transport assumptions
 * (HTTP, Content-Length headers, their own reconnect) the control channel does not want.
 */
export interface LineSplitter {
  /** Feeds bytes; calls `onLine` for every complete line (without `\n` or a trailing `\r`). */
  push(chunk: Buffer): void;
  /** Drops what is buffered and ignores further input (after an overflow or a close). */
  stop(): void;
}

/**
 * `onOverflow` fires once, as soon as a line grows past `maxLineBytes` (before its newline
 * arrives, so an endless line is never buffered whole); the splitter stops after it.
 */
export function createLineSplitter(maxLineBytes: number, onLine: (line: string) => void, onOverflow: () => void): LineSplitter {
  let parts: Buffer[] = [];
  let size = 0;
  let stopped = false;

  const stop = () => {
    stopped = true;
    parts = [];
    size = 0;
  };

  return {
    stop,
    push(chunk) {
      let start = 0;
      while (!stopped) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.length : newline;
        if (size + (end - start) > maxLineBytes) {
          stop();
          onOverflow();
          return;
        }
        if (newline === -1) {
          if (end > start) {
            parts.push(chunk.subarray(start));
            size += end - start;
          }
          return;
        }
        const piece = chunk.subarray(start, end);
        const bytes = size === 0 ? piece : Buffer.concat([...parts, piece]);
        parts = [];
        size = 0;
        start = newline + 1;
        const length = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
        if (length > 0) onLine(bytes.toString('utf8', 0, length));
      }
    },
  };
}
