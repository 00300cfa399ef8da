import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';
import type Pino from 'pino';
import { maskSecrets } from '../config/mask.js';
import { createLogFile, type LogFileHealth } from './log-file.js';
import { createReadableLines } from './readable-lines.js';
import type { LogLevel } from '../config/load.js';

export type { Logger };

export interface LoggerOptions {
  file: string;
  level: LogLevel;
  /** headless: also readable lines on stderr. console: the file only (Ink owns the terminal). */
  mode: 'headless' | 'console' | 'quiet';
  /** Extra sink, e.g. the console's in-memory log ring. */
  sink?: Pino.DestinationStream;
}

export interface ManagedLogger {
  logger: Logger;
  /** Writes to gateway.log only: for what the CLI already reported on stderr itself. */
  fileLogger: Logger;
  /** Lines the log file dropped (a full disk), and the error still happening. */
  health(): LogFileHealth;
  /** Flushes the file; call on shutdown. */
  close(): Promise<void>;
}

/** pino to logs/gateway.log as JSON lines, with every secret-named field masked before it is written. */
export function createLogger(options: LoggerOptions): ManagedLogger {
  // Required here, not imported: a command that builds no logger never loads pino (about 40 ms).
  const pino = createRequire(import.meta.url)('pino') as typeof Pino;
  fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
  const file = createLogFile(options.file);
  const streams: Pino.StreamEntry[] = [{ stream: file, level: options.level }];
  const readable = options.mode === 'headless' ? createReadableLines({ fd: 2, colorize: process.stderr.isTTY === true }) : undefined;
  if (readable) streams.push({ level: options.level === 'trace' || options.level === 'debug' ? options.level : 'info', stream: readable });
  if (options.sink) streams.push({ stream: options.sink, level: options.level });
  const settings: Pino.LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    formatters: { log: (object) => maskSecrets(object) },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const logger = pino(settings, pino.multistream(streams));
  return {
    logger,
    fileLogger: pino(settings, file),
    health: () => file.health(),
    close: async () => {
      try {
        readable?.flushSync();
      } catch {
        // nothing buffered, or already closed
      }
      await file.close();
    },
  };
}
