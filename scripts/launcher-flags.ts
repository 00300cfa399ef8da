import fs from 'node:fs';

/**
 * The Node flags `switchboard` runs with: those of the built CLI's shebang
 * (`#!/usr/bin/env -S node <flags>`). The benchmarks start the core with the same flags.
 */
export function launcherFlags(): string[] {
  const shebang = fs.readFileSync(new URL('../dist/cli/main.js', import.meta.url), 'utf8').split('\n', 1)[0]!;
  const words = shebang.replace(/^#!\S+\s+(-S\s+)?/, '').split(/\s+/);
  return words[0] === 'node' ? words.slice(1) : [];
}
