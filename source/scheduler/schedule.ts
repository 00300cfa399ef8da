import { Cron } from 'croner';
import { isUtc } from '../infra/utc-zone.js';

/** A checked schedule. `every` runs on a fixed period from its anchor; `cron` is a five-field expression. */
export type Schedule =
  | { kind: 'every'; text: string; periodMs: number }
  | { kind: 'cron'; text: string; expression: string };

export type ScheduleResult = { ok: true; value: Schedule } | { ok: false; reason: string };

export const ACCEPTED_FORMS =
  'accepted forms: "every <N>m", "every <N>h", "every <N>d" (N a whole number >= 1), or a five-field cron expression ' +
  '"minute hour day-of-month month day-of-week" with ranges, steps, lists and names, e.g. "0 2 * * *", "0 9 * * 1-5", "0 */6 * * *", "30 8 * * mon,thu" (0 and 7 are Sunday)';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** One year: longer intervals are almost certainly typos. */
const MAX_PERIOD_MS = 366 * UNIT_MS.d;

/** Parses what an operator or the agent wrote. Never throws: a bad schedule is a reason. */
export function parseSchedule(input: string): ScheduleResult {
  const text = input.trim().replace(/\s+/g, ' ');
  if (text === '') return refuse('the schedule is empty');
  const every = /^every (\d+) ?([mhd])$/i.exec(text);
  if (every) {
    const count = Number(every[1]);
    const periodMs = count * UNIT_MS[every[2]!.toLowerCase() as keyof typeof UNIT_MS];
    if (count < 1) return refuse(`"${text}": the interval must be at least 1`);
    if (periodMs > MAX_PERIOD_MS) return refuse(`"${text}": the interval is longer than a year`);
    return { ok: true, value: { kind: 'every', text: `every ${count}${every[2]!.toLowerCase()}`, periodMs } };
  }
  if (/^every\b/i.test(text)) return refuse(`"${text}" is not an interval`);
  const fields = text.split(' ');
  if (fields.length !== 5) return refuse(`"${text}" has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron expression has exactly five`);
  if (fields.some(usesQuartzExtension)) {
    return refuse(`"${text}" uses L, W, # or ?, which are not supported`);
  }
  try {
    const cron = makeCron(text, 'UTC');
    if (cron.nextRun(new Date(0)) === null) return refuse(`"${text}" never fires`);
  } catch (error) {
    return refuse(`"${text}": ${cleanCronMessage((error as Error).message)}`);
  }
  return { ok: true, value: { kind: 'cron', text, expression: text } };
}

/** croner also takes Quartz's L, W, # and ?; we keep to standard cron so schedules mean the same everywhere. */
function usesQuartzExtension(field: string): boolean {
  return /[#?]/.test(field) || /^(L|LW)$/i.test(field) || /\d[LW]$/i.test(field) || /^L-/i.test(field);
}

function refuse(reason: string): ScheduleResult {
  return { ok: false, reason: `invalid schedule: ${reason}; ${ACCEPTED_FORMS}` };
}

function cleanCronMessage(message: string): string {
  return message.replace(/^CronPattern: /, '').replace(/^Invalid value for dayOfWeek/, 'invalid value for day-of-week').replace(/^Invalid value for /, 'invalid value for ');
}

function makeCron(expression: string, timezone: string): Cron {
  // Standard cron: day-of-month and day-of-week combine with OR; 0 and 7 are Sunday.
  return new Cron(expression, { timezone, paused: true, mode: '5-part', domAndDow: false });
}

/**
 * The first fire strictly after `afterMs`. `every` counts whole periods from `anchorMs` (the job's
 * creation), so restarts never shift the grid; `cron` is computed by croner in `timezone`, DST included.
 */
export function nextRunAfter(schedule: Schedule, afterMs: number, timezone: string, anchorMs: number): number | null {
  if (schedule.kind === 'every') {
    if (afterMs < anchorMs) return anchorMs + schedule.periodMs;
    const periods = Math.floor((afterMs - anchorMs) / schedule.periodMs) + 1;
    return anchorMs + periods * schedule.periodMs;
  }
  const next = makeCron(schedule.expression, timezone).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

/** The last fire at or before `atMs` (for catch-up), or null when there is none since `sinceMs`. */
export function previousRunAtOrBefore(schedule: Schedule, atMs: number, timezone: string, anchorMs: number, sinceMs: number): number | null {
  if (schedule.kind === 'every') {
    if (atMs < anchorMs + schedule.periodMs) return null;
    const fire = anchorMs + Math.floor((atMs - anchorMs) / schedule.periodMs) * schedule.periodMs;
    return fire >= sinceMs ? fire : null;
  }
  const previous = makeCron(schedule.expression, timezone).previousRuns(1, new Date(atMs + 1))[0];
  return previous && previous.getTime() >= sinceMs ? previous.getTime() : null;
}

/** The next `count` fires after `afterMs` (`cron next` previews; `every` counts from now). */
export function nextRuns(schedule: Schedule, afterMs: number, timezone: string, count: number, anchorMs = afterMs): number[] {
  const runs: number[] = [];
  let cursor = afterMs;
  while (runs.length < count) {
    const next = nextRunAfter(schedule, cursor, timezone, anchorMs);
    if (next === null) break;
    runs.push(next);
    cursor = next;
  }
  return runs;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `2026-03-08 03:00 EDT` style, in the zone the schedule runs in. */
export function formatInZone(atMs: number, timezone: string): string {
  if (isUtc(timezone)) {
    const at = new Date(atMs);
    const pad = (value: number) => String(value).padStart(2, '0');
    return `${WEEKDAYS[at.getUTCDay()]} ${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
  }
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short', hourCycle: 'h23', timeZoneName: 'short',
  }).formatToParts(new Date(atMs));
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${get('timeZoneName')}`;
}
