import fs from 'node:fs';
import module, { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const barrel = /\/node_modules\/es-toolkit\/dist\/compat\/index\.mjs$/;
/** Marks Ink's default-only import of react-reconciler, which the load hook serves. */
const DEFAULT_ONLY = '#default-only';

/**
 * Two of Ink's imports, redirected by module hooks (in this thread, synchronous; Ink's own imports only):
 * - `throttle` from es-toolkit's `compat` barrel loaded the barrel's 415 modules, about a quarter of
 *   the console's module loading: it resolves to the function's own module (the same `throttle`;
 *   nothing changes when es-toolkit's layout does not match).
 * - `import createReconciler from 'react-reconciler'`: to offer named exports from CommonJS, Node
 *   scans the file with cjs-module-lexer and follows its last `module.exports = require(...)`,
 *   which is the 814 KB development build (35-80 ms), while the production build runs. Ink uses
 *   the default export only: a one-line module `require`s the same file, unscanned.
 */
export function slimInkImports(): void {
  module.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (!context.parentURL?.includes('/node_modules/ink/')) return resolved;
      if (specifier === 'react-reconciler' && resolved.url.endsWith('/node_modules/react-reconciler/index.js')) return { ...resolved, url: `${resolved.url}${DEFAULT_ONLY}` };
      if (specifier !== 'es-toolkit/compat' || !barrel.test(resolved.url)) return resolved;
      const throttle = resolved.url.replace(barrel, '/node_modules/es-toolkit/dist/compat/function/throttle.mjs');
      return fs.existsSync(new URL(throttle)) ? { ...resolved, url: throttle } : resolved;
    },
    load(url, context, nextLoad) {
      if (!url.endsWith(DEFAULT_ONLY)) return nextLoad(url, context);
      const file = fileURLToPath(url.slice(0, -DEFAULT_ONLY.length));
      return { format: 'module', shortCircuit: true, source: `import { createRequire } from 'node:module';\nexport default createRequire(${JSON.stringify(file)})(${JSON.stringify(file)});\n` };
    },
  });
}

/**
 * Yoga (Ink's layout engine) reads its wasm from a `data:` URL with fetch() whenever fetch exists,
 * which loads Node's bundled HTTP client (undici) and web streams, 30-40 ms, for bytes its loader
 * otherwise decodes itself. Yoga is evaluated here, alone, with fetch hidden, then fetch is put
 * back before any other module runs; Ink later imports the same module (same URL), already loaded.
 */
export async function loadYogaWithoutFetch(): Promise<void> {
  let yoga: string;
  try {
    yoga = createRequire(import.meta.resolve('ink')).resolve('yoga-layout');
  } catch {
    return; // another layout: Ink loads Yoga itself, as before
  }
  const fetchProperty = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetchProperty) Reflect.deleteProperty(globalThis, 'fetch');
  try {
    await import(pathToFileURL(yoga).href);
  } finally {
    if (fetchProperty) Object.defineProperty(globalThis, 'fetch', fetchProperty);
  }
}
