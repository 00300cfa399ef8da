#!/usr/bin/env -S node --max-semi-space-size=4
// The young generation at most 2 x 4 MB (V8's default grows it to 2 x 16 MB under load): V8 takes
// that size only at start, hence the flag here (and in `npm start`); a gateway draining webhooks
// peaks about 25 MB lower at the same CPU (docs/perf/drain.md). Run `node dist/cli/main.js` by hand
// and you get V8's default.
import module from 'node:module';
import { silenceSqliteExperimentalWarning } from '../infra/quiet-sqlite-warning.js';

// Node keeps the compiled code of the modules it loads (in the OS temp folder) for the next start.
module.enableCompileCache?.();

// Before anything loads node:sqlite; the rest of the CLI is imported afterwards on purpose.
silenceSqliteExperimentalWarning();
// React (under Ink) picks its build when first loaded: the development build checks and times every
// component render (performance.measure per render), which under a webhook burst costs the console
// most of its event loop and grows its memory. The CLI is always the production build.
process.env.NODE_ENV ??= 'production';
// `switchboard webhook list | head -1`: the reader went away; stop quietly like any Unix tool, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Answered before the command tree loads (what commander would print for it).
  const { version } = await import('./version.js');
  process.stdout.write(`${version}\n`);
} else {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(argv);
}
