import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander, loaded with `require`: its ESM entry imports the CommonJS package, which makes Node scan
 * it for export names first (about 3.5 ms of every CLI start).
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const Command = commander.Command;
export type Command = Commander.Command;
export const CommanderError = commander.CommanderError;
export type CommanderError = Commander.CommanderError;
export const InvalidArgumentError = commander.InvalidArgumentError;
export const Option = commander.Option;
