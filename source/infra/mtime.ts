import fs from 'node:fs';

/** A file's modification time in ms, or 0 when it does not exist (yet): what the polling watches compare. */
export function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
