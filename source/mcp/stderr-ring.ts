import fs from 'node:fs';
import path from 'node:path';

/** The last lines a stdio server wrote to stderr, plus an append-only `logs/mcp/<server>.log`. */
export interface StderrRing {
  write(chunk: Buffer | string): void;
  lines(): string[];
  /** A position to read from later: `since(mark())` is what was written after it (one attempt's output). */
  mark(): number;
  since(mark: number): string[];
  close(): void;
}

export function createStderrRing(logFile: string | undefined, maxLines = 200): StderrRing {
  const kept: string[] = [];
  let partial = '';
  let total = 0;
  let stream: fs.WriteStream | undefined;
  if (logFile) {
    fs.mkdirSync(path.dirname(logFile), { recursive: true, mode: 0o700 });
    stream = fs.createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    stream.on('error', () => { stream = undefined; });
  }
  return {
    write(chunk) {
      const text = partial + chunk.toString();
      const parts = text.split(/\r?\n/);
      partial = parts.pop() ?? '';
      for (const line of parts) {
        kept.push(line);
        total += 1;
        if (kept.length > maxLines) kept.shift();
      }
      stream?.write(chunk);
    },
    lines: () => (partial ? [...kept, partial] : [...kept]),
    mark: () => total + (partial ? 1 : 0),
    since(mark) {
      const all = partial ? [...kept, partial] : kept;
      const end = total + (partial ? 1 : 0);
      return all.slice(Math.max(0, all.length - Math.max(0, end - mark)));
    },
    close() {
      stream?.end();
      stream = undefined;
    },
  };
}
