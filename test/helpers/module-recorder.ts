import fs from 'node:fs';
import path from 'node:path';

/**
 * A preloaded hook (`node --import <file>`) that records every module the process resolves,
 * through `import` and `require` alike (module.registerHooks), and writes the list when it exits.
 * Returns the hook's path and a reader of the list.
 */
export function moduleRecorder(dir: string): { hook: string; modules(): string[] } {
  const hook = path.join(dir, 'record-modules.mjs');
  const list = path.join(dir, 'modules.txt');
  fs.writeFileSync(hook, `
import fs from 'node:fs';
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });
process.on('exit', () => fs.writeFileSync(${JSON.stringify(list)}, [...seen].join('\\n')));
`);
  return { hook, modules: () => fs.readFileSync(list, 'utf8').split('\n') };
}

/** The recorded modules that belong to a package (`/node_modules/<name>/`). */
export function fromPackage(modules: string[], name: string): string[] {
  return modules.filter((url) => url.includes(`/node_modules/${name}/`));
}
