import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type Pino from 'pino';
import type PinoPretty from 'pino-pretty';
import { maskSecrets } from '../config/mask.js';
import type { LogLevel } from '../config/load.js';

export type { Logger };

export interface LoggerOptions {
  file: string;
  level: LogLevel;
  /** headless: also readable lines on stderr. console: the file only (Ink owns the terminal). */
  mode: 'headless' | 'console' | 'quiet';
  /** Extra sink, e.g. the console's in-memory log ring. */
  sink?: Writable;
}

export interface ManagedLogger {
  logger: Logger;
  /** Writes to gateway.log only: for what the CLI already reported on stderr itself. */
  fileLogger: Logger;
  /** Flushes the file; call on shutdown. */
  close(): Promise<void>;
}

/** pino to logs/gateway.log as JSON lines, with every secret-named field masked before it is written. */
export function createLogger(options: LoggerOptions): ManagedLogger {
  // Required here, not imported: a command that builds no logger never loads pino (about 40 ms).
  const pino = createRequire(import.meta.url)('pino') as typeof Pino;
  fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
  const file = pino.destination({ dest: options.file, sync: false, mkdir: true });
  const streams: Pino.StreamEntry[] = [{ stream: file, level: options.level }];
  if (options.mode === 'headless') {
    // Loaded only here (CommonJS, so synchronously): the console and quiet modes never need it.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    streams.push({
      level: options.level === 'trace' || options.level === 'debug' ? options.level : 'info',
      stream: pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss' }),
    });
  }
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
    // The file opens asynchronously: wait for it (a home removed right after a short command would
    // otherwise fail the late open), then write out what is buffered.
    close: () => new Promise<void>((resolve) => {
      const flush = () => {
        try {
          file.flushSync();
        } catch {
          // nothing buffered, or already closed
        }
        resolve();
      };
      if ((file as unknown as { fd: number }).fd < 0) file.once('ready', flush);
      else flush();
    }),
  };
}
