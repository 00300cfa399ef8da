#!/usr/bin/env node
import { silenceSqliteExperimentalWarning } from '../infra/quiet-sqlite-warning.js';

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
const { runCli } = await import('./program.js');
process.exitCode = await runCli(process.argv.slice(2));
