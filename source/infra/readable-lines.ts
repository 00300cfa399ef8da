import type { DestinationStream } from 'pino';
import { createNonBlockingOut } from './nonblocking-out.js';

const labels: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const colours: Record<number, string> = { 10: '\u001b[90m', 20: '\u001b[34m', 30: '\u001b[32m', 40: '\u001b[33m', 50: '\u001b[31m', 60: '\u001b[41m' };
const hidden = new Set(['level', 'time', 'msg', 'pid', 'hostname']);
/** Longer field values are cut on the terminal: gateway.log keeps them whole (a `log` delivery's output, say). */
export const MAX_FIELD_CHARS = 300;

/** Written out at the end of each event-loop turn, or sooner once this much is waiting. */
const BATCH_CHARS = 64 * 1024;

/**
 * The headless gateway's readable lines (stderr): `[HH:MM:ss] LEVEL: message`, then each field on
 * its own indented line, as pino-pretty printed them. pino-pretty took about an eighth of the
 * gateway's time under a webhook flood (a stream pipeline, a deep copy and a date library per
 * line): this parses the JSON line once. The lines of one event-loop turn go out in one write at
 * its end (one write per line cost another 7% of the intake). A reader that falls behind never
 * stalls the gateway: what it is not ready for waits, then is dropped and counted
 * (source/infra/nonblocking-out.ts). close() writes out the last turn; a crash can lose that turn's
 * lines here, not in gateway.log.
 */
export function createReadableLines(options: { fd: number; colorize: boolean }): DestinationStream & { flushSync(): void } {
  const out = createNonBlockingOut(options.fd, (lines) => formatLine(JSON.stringify({ level: 40, time: Date.now(),
    msg: `${lines} log line(s) were not shown here: stderr was not read fast enough (logs/gateway.log has every line)` }), options.colorize));
  let waiting = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (waiting === '') return;
    const text = waiting;
    waiting = '';
    out.write(text);
  };
  return {
    write(line: string) {
      waiting += formatLine(line, options.colorize);
      if (waiting.length >= BATCH_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flushSync() {
      flush();
      out.flushSync();
    },
  };
}

export function formatLine(line: string, colorize = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const label = labels[level] ?? 'USERLVL';
  let text = `[${clock(entry.time)}] ${colorize ? `${colours[level] ?? ''}${label}\u001b[39m\u001b[49m` : label}: ${typeof entry.msg === 'string' ? entry.msg : ''}\n`;
  for (const key in entry) {
    if (hidden.has(key)) continue;
    text += `    ${key}: ${key === 'err' ? describeError(entry[key]) : describeValue(entry[key])}\n`;
  }
  return text;
}

/** Local wall-clock time of the line (`SYS:HH:MM:ss`). */
function clock(time: unknown): string {
  const date = new Date(typeof time === 'string' || typeof time === 'number' ? time : Date.now());
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function describeValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS)}…` : value) : JSON.stringify(value, undefined, 2) ?? String(value);
  const cut = text.length > MAX_FIELD_CHARS * 2 ? `${text.slice(0, MAX_FIELD_CHARS * 2)}… (cut; whole in gateway.log)` : text;
  return cut.replaceAll('\n', '\n    ');
}

/** pino's serialized error: its message, then its stack indented. */
function describeError(value: unknown): string {
  if (!value || typeof value !== 'object') return describeValue(value);
  const error = value as { type?: string; message?: string; stack?: string };
  const stack = typeof error.stack === 'string' ? error.stack : `${error.type ?? 'Error'}: ${error.message ?? ''}`;
  return stack.replaceAll('\n', '\n        ');
}
