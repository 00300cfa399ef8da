#!/usr/bin/env node
// No Node flags on this line: any V8 flag costs every command about 15 ms (source/cli/gateway-node-flags.ts).
import module from 'node:module';
import { silenceSqliteExperimentalWarning } from '../infra/quiet-sqlite-warning.js';
import { execGatewayWithNodeFlags } from './gateway-node-flags.js';

const argv = process.argv.slice(2);
// The headless gateway goes on in a process with its heap flags: first, before anything is set up here.
execGatewayWithNodeFlags(argv, process.argv[1]!);

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
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Answered before the command tree loads (what commander would print for it).
  const { version } = await import('./version.js');
  process.stdout.write(`${version}\n`);
} else {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(argv);
}
