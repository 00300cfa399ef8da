import fs from 'node:fs';
import path from 'node:path';

/** The last lines a stdio server wrote to stderr, plus an append-only `logs/mcp/<server>.log`. */
export interface StderrRing {
  write(chunk: Buffer | string): void;
  lines(): string[];
  close(): void;
}

export function createStderrRing(logFile: string | undefined, maxLines = 200): StderrRing {
  const kept: string[] = [];
  let partial = '';
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
        if (kept.length > maxLines) kept.shift();
      }
      stream?.write(chunk);
    },
    lines: () => (partial ? [...kept, partial] : [...kept]),
    close() {
      stream?.end();
      stream = undefined;
    },
  };
}
