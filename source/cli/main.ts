#!/usr/bin/env node
import { silenceSqliteExperimentalWarning } from '../infra/quiet-sqlite-warning.js';

// Before anything loads node:sqlite; the rest of the CLI is imported afterwards on purpose.
silenceSqliteExperimentalWarning();
const { runCli } = await import('./program.js');
process.exitCode = await runCli(process.argv.slice(2));
