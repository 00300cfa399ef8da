import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every module a file loads at run time, following relative imports (`import type` loads nothing). */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  const source = fs.readFileSync(file, 'utf8');
  for (const match of source.matchAll(/^import (?!type )[^;]*?from '([^']+)'|^import '([^']+)'/gm)) {
    const specifier = (match[1] ?? match[2])!;
    if (!specifier.startsWith('.')) {
      seen.add(specifier);
      continue;
    }
    const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
    const key = path.relative(process.cwd(), target);
    if (seen.has(key)) continue;
    seen.add(key);
    runtimeImports(target, seen);
  }
  return seen;
}

describe('the control client', () => {
  it('loads only node:net and the small protocol modules (every CLI command loads it)', () => {
    expect([...runtimeImports('source/control/client.ts')].sort()).toEqual([
      'node:net',
      'source/control/framing.ts',
      'source/control/protocol.ts',
      'source/control/rpc-session.ts',
      'source/operations/errors.ts',
    ]);
  });
});
