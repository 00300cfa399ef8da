/**
 * UTC under either of its IANA names. Checked and formatted without ICU: the first
 * `Intl.DateTimeFormat` of a process costs about 23 ms (ICU's time-zone data), a tenth of a
 * `switchboard cron list` on a home whose `timezone` is UTC, as servers' often are.
 */
export function isUtc(timezone: string): boolean {
  return timezone === 'UTC' || timezone === 'Etc/UTC';
}
