import fs from 'node:fs';
import module from 'node:module';

const barrel = /\/node_modules\/es-toolkit\/dist\/compat\/index\.mjs$/;

/**
 * Ink imports one function, `throttle`, from es-toolkit's `compat` barrel, which loads its 415
 * modules: about a quarter of the console's module loading. This resolve hook points that one
 * import (from Ink's own files only) at the function's module, which exports the same `throttle`.
 * Nothing changes when the module is not where it is expected (another es-toolkit layout).
 */
export function slimInkImports(): void {
  module.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (specifier !== 'es-toolkit/compat' || !context.parentURL?.includes('/node_modules/ink/') || !barrel.test(resolved.url)) return resolved;
      const throttle = resolved.url.replace(barrel, '/node_modules/es-toolkit/dist/compat/function/throttle.mjs');
      return fs.existsSync(new URL(throttle)) ? { ...resolved, url: throttle } : resolved;
    },
  });
}
