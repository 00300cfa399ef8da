import { describe, expect, it } from 'vitest';
import { catchUpWindowMs, decideCatchUp } from '../../source/scheduler/catch-up.js';
import { formatInZone, nextRunAfter, nextRuns, parseSchedule, type Schedule } from '../../source/scheduler/schedule.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function schedule(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

describe('parseSchedule', () => {
  it.each([
    ['every 5m', { kind: 'every', periodMs: 300_000, text: 'every 5m' }],
    ['every 2h', { kind: 'every', periodMs: 7_200_000, text: 'every 2h' }],
    ['every 1d', { kind: 'every', periodMs: 86_400_000, text: 'every 1d' }],
    ['  EVERY   30M ', { kind: 'every', periodMs: 1_800_000, text: 'every 30m' }],
    ['0 2 * * *', { kind: 'cron', expression: '0 2 * * *' }],
    ['0 9 * * 1-5', { kind: 'cron' }],
    ['0 */6 * * *', { kind: 'cron' }],
    ['*/15 8-18 * * mon-fri', { kind: 'cron' }],
    ['0 9 1,15 * *', { kind: 'cron' }],
    ['30 8 * jan,jul sun', { kind: 'cron' }],
    ['0 12 * * 7', { kind: 'cron' }],
    ['0 0 1 */3 *', { kind: 'cron' }],
    ['5-10/2 * * * *', { kind: 'cron' }],
  ])('accepts %j', (text, expected) => {
    const parsed = parseSchedule(text);
    expect(parsed).toMatchObject({ ok: true, value: expected });
  });

  it.each([
    ['', 'the schedule is empty'],
    ['every 0m', 'at least 1'],
    ['every 5s', 'is not an interval'],
    ['every 30 minutes', 'is not an interval'],
    ['every 400d', 'longer than a year'],
    ['* * * *', 'has 4 fields'],
    ['0 0 * * * *', 'has 6 fields'],
    ['61 * * * *', 'invalid value for minute: 61'],
    ['0 25 * * *', 'hour'],
    ['0 2 * * 8', 'day-of-week'],
    ['0 0 * * mon#2', 'L, W, # or ?'],
    ['0 0 L * *', 'L, W, # or ?'],
    ['0 0 31 2 *', 'never fires'],
    ['5/5 * * * *', 'stepping'],
    ['hourly', 'has 1 field'],
  ])('refuses %j with the reason and the accepted forms', (text, reason) => {
    const parsed = parseSchedule(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reason).toContain(reason);
    expect(parsed.reason).toContain('accepted forms: "every <N>m"');
    expect(parsed.reason).toContain('0 9 * * 1-5');
  });
});

describe('next runs (fake clock: explicit instants)', () => {
  const zone = 'America/New_York';

  it('runs a spring-forward 02:30 job at 03:00 on the DST day (croner 11), then at 02:30 again', () => {
    // 2026-03-08: clocks jump from 02:00 to 03:00 in New York.
    const runs = nextRuns(schedule('30 2 * * *'), at('2026-03-07T12:00:00Z'), zone, 3);
    expect(runs.map((ms) => formatInZone(ms, zone))).toEqual(['Sun 2026-03-08 03:00 EDT', 'Mon 2026-03-09 02:30 EDT', 'Tue 2026-03-10 02:30 EDT']);
    expect(iso(runs[0]!)).toBe('2026-03-08T07:00:00.000Z');
  });

  it('runs a fall-back 01:30 job once on the repeated hour', () => {
    // 2026-11-01: 01:00-02:00 happens twice in New York.
    const runs = nextRuns(schedule('30 1 * * *'), at('2026-10-31T12:00:00Z'), zone, 3);
    expect(runs.map(iso)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z', '2026-11-03T06:30:00.000Z']);
    expect(formatInZone(runs[0]!, zone)).toBe('Sun 2026-11-01 01:30 EDT');
  });

  it('keeps 09:00 local across both transitions (the UTC instant moves)', () => {
    const spring = nextRuns(schedule('0 9 * * *'), at('2026-03-07T00:00:00Z'), zone, 2).map(iso);
    expect(spring).toEqual(['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z']);
    const fall = nextRuns(schedule('0 9 * * *'), at('2026-10-31T00:00:00Z'), zone, 2).map(iso);
    expect(fall).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z']);
  });

  it('takes weekday 7 as Sunday, like 0 and SUN (Bree would say Saturday)', () => {
    const from = at('2026-11-18T00:00:00Z'); // a Wednesday
    const seven = nextRuns(schedule('0 9 * * 7'), from, 'UTC', 2);
    expect(seven.map((ms) => new Date(ms).getUTCDay())).toEqual([0, 0]);
    expect(seven).toEqual(nextRuns(schedule('0 9 * * 0'), from, 'UTC', 2));
    expect(seven).toEqual(nextRuns(schedule('0 9 * * sun'), from, 'UTC', 2));
    expect(iso(seven[0]!)).toBe('2026-11-22T09:00:00.000Z');
  });

  it('combines day-of-month and day-of-week with OR, as standard cron does', () => {
    const runs = nextRuns(schedule('0 9 1 * mon'), at('2026-03-25T00:00:00Z'), 'UTC', 3).map(iso);
    expect(runs).toEqual(['2026-03-30T09:00:00.000Z', '2026-04-01T09:00:00.000Z', '2026-04-06T09:00:00.000Z']);
  });

  it('evaluates weekdays in the configured zone, not UTC', () => {
    // 23:30 Sunday in Los Angeles is Monday in UTC.
    const runs = nextRuns(schedule('30 23 * * sun'), at('2026-11-18T00:00:00Z'), 'America/Los_Angeles', 1);
    expect(iso(runs[0]!)).toBe('2026-11-23T07:30:00.000Z');
  });

  it('counts intervals from the anchor, so a restart never shifts the grid', () => {
    const every = schedule('every 15m');
    const anchor = at('2026-11-21T10:07:00Z');
    expect(iso(nextRunAfter(every, anchor, 'UTC', anchor)!)).toBe('2026-11-21T10:22:00.000Z');
    expect(iso(nextRunAfter(every, at('2026-11-21T11:00:00Z'), 'UTC', anchor)!)).toBe('2026-11-21T11:07:00.000Z');
    expect(iso(nextRunAfter(every, at('2026-11-21T11:07:00Z'), 'UTC', anchor)!)).toBe('2026-11-21T11:22:00.000Z');
  });
});

describe('catch-up decisions', () => {
  const hourly = schedule('0 * * * *');
  const base = { schedule: hourly, timezone: 'UTC', anchorMs: at('2026-11-01T00:00:00Z') };

  it('clamps the window to half the period, within 2 minutes..2 hours', () => {
    expect(catchUpWindowMs(schedule('every 1m'), at('2026-11-21T10:00:00Z'), 'UTC', at('2026-11-21T09:00:00Z'))).toBe(120_000);
    expect(catchUpWindowMs(hourly, at('2026-11-21T10:00:00Z'), 'UTC', 0)).toBe(1_800_000);
    expect(catchUpWindowMs(schedule('0 2 * * *'), at('2026-11-21T02:00:00Z'), 'UTC', 0)).toBe(7_200_000);
  });

  it('once: runs the latest missed fire when it is recent enough', () => {
    const decision = decideCatchUp({ ...base, policy: 'once', nextRunAtMs: at('2026-11-21T08:00:00Z'), nowMs: at('2026-11-21T10:20:00Z') });
    expect(decision).toMatchObject({ action: 'run', missedAtMs: at('2026-11-21T10:00:00Z'), nextRunAtMs: at('2026-11-21T11:00:00Z') });
  });

  it('once: skips to the next slot when the missed fire is older than the window', () => {
    const decision = decideCatchUp({ ...base, policy: 'once', nextRunAtMs: at('2026-11-21T10:00:00Z'), nowMs: at('2026-11-21T10:45:00Z') });
    expect(decision).toMatchObject({ action: 'skip', missedAtMs: at('2026-11-21T10:00:00Z'), nextRunAtMs: at('2026-11-21T11:00:00Z') });
    if (decision.action === 'skip') expect(decision.reason).toContain('beyond the catch-up window of 30 min');
  });

  it('skip: never runs a missed fire', () => {
    const decision = decideCatchUp({ ...base, policy: 'skip', nextRunAtMs: at('2026-11-21T10:00:00Z'), nowMs: at('2026-11-21T10:01:00Z') });
    expect(decision).toMatchObject({ action: 'skip', nextRunAtMs: at('2026-11-21T11:00:00Z') });
  });

  it('does nothing when the next run is still ahead', () => {
    expect(decideCatchUp({ ...base, policy: 'once', nextRunAtMs: at('2026-11-21T11:00:00Z'), nowMs: at('2026-11-21T10:59:00Z') })).toEqual({ action: 'none' });
  });

  it('formats UTC without ICU exactly as ICU does, under both of its names', () => {
    const viaIcu = (atMs: number) => {
      const parts = new Intl.DateTimeFormat('en-CA', {
        timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short', hourCycle: 'h23', timeZoneName: 'short',
      }).formatToParts(new Date(atMs));
      const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
      return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${get('timeZoneName')}`;
    };
    // Every day of a leap year and a bit, at a minute that moves through the hours.
    for (let day = 0; day < 400; day += 1) {
      const atMs = Date.UTC(2028, 0, 1) + day * 86_400_000 + day * 3_607_000;
      expect(formatInZone(atMs, 'UTC')).toBe(viaIcu(atMs));
      expect(formatInZone(atMs, 'Etc/UTC')).toBe(viaIcu(atMs));
    }
    expect(formatInZone(Date.UTC(2026, 10, 26, 0, 5), 'UTC')).toBe('Thu 2026-11-26 00:05 UTC');
  });
});
