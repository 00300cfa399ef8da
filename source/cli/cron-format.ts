import type { JobRow, JobRunRow } from '../store/jobs.js';
import { formatInZone } from '../operations/jobs.js';

/** The job for people: what, when next, where the answer goes. */
export function formatJob(job: JobRow, timezone: string, homeRoot: string): string {
  const lines = [
    `${job.name} (${job.id})${job.enabled ? '' : ' [paused]'}`,
    `  schedule   ${job.schedule} (${timezone})`,
    `  next run   ${nextRunText(job, timezone)}`,
    `  deliver    ${job.deliver}${job.deliver === 'local' ? ` -> ${homeRoot}/cron/output/${job.id}/` : ''}`,
    `  prompt     ${job.prompt.length > 200 ? `${job.prompt.slice(0, 199)}…` : job.prompt}`.replace(/\n/g, '\n             '),
  ];
  if (job.skills.length > 0) lines.push(`  skills     ${job.skills.join(', ')}`);
  if (job.script) lines.push(`  script     ${job.script}`);
  lines.push(`  catch-up   ${job.catchUp}`);
  lines.push(`  created    ${formatInZone(job.createdAtMs, timezone)} (origin ${job.origin})`);
  if (job.lastRunAtMs !== null) {
    lines.push(`  last run   ${formatInZone(job.lastRunAtMs, timezone)}: ${job.lastStatus}${job.lastError ? ` - ${job.lastError}` : ''}`);
  }
  if (job.consecutiveFailures > 0) lines.push(`  failures   ${job.consecutiveFailures} in a row`);
  return lines.join('\n');
}

export function nextRunText(job: JobRow, timezone: string): string {
  if (!job.enabled) return 'paused (switchboard cron resume to continue)';
  return job.nextRunAtMs === null ? 'never' : formatInZone(job.nextRunAtMs, timezone);
}

/** One job per line, for `cron list`. */
export function formatJobTable(jobs: JobRow[], timezone: string): string {
  const rows = jobs.map((job) => [job.id, job.name, job.schedule, job.enabled ? nextRunText(job, timezone) : 'paused', job.lastStatus ?? '-', job.deliver]);
  return table(['ID', 'NAME', 'SCHEDULE', 'NEXT RUN', 'LAST', 'DELIVER'], rows);
}

export function formatRunTable(runs: JobRunRow[], timezone: string): string {
  const rows = runs.map((run) => [
    run.id.slice(0, 8), `${run.jobName} (${run.jobId})`, run.trigger, formatInZone(run.startedAtMs ?? run.queuedAtMs, timezone), run.status,
    run.finishedAtMs !== null && run.startedAtMs !== null ? `${run.finishedAtMs - run.startedAtMs} ms` : '-',
    oneLine([run.error, run.reason].filter(Boolean).join('; ') || (run.deliveryDetail ? `delivered: ${run.deliveryDetail}` : ''), 70),
  ]);
  return table(['RUN', 'JOB', 'TRIGGER', 'STARTED', 'STATUS', 'TOOK', 'DETAIL'], rows);
}

/** The outcome of one run, for `cron run`: status line then the answer. */
export function formatRunResult(run: JobRunRow): { status: string; output: string } {
  const took = run.finishedAtMs !== null && run.startedAtMs !== null ? ` in ${run.finishedAtMs - run.startedAtMs} ms` : '';
  // A failed delivery's error repeats what the delivery part says; a reason (a skill the run went without) adds to an error.
  const detail = [run.status === 'delivery_failed' ? null : run.error, run.reason].filter(Boolean).join('; ');
  const delivery = run.deliveryTarget ? `; delivery to ${run.deliveryTarget}: ${run.deliveryOk ? 'ok' : 'failed'}${run.deliveryDetail ? ` (${run.deliveryDetail})` : ''}` : '';
  return { status: `Run ${run.id} of ${run.jobName} (${run.jobId}): ${run.status}${took}${detail ? ` - ${detail}` : ''}${delivery}`, output: run.output ?? '' };
}

export function jobJson(job: JobRow, timezone: string) {
  return { ...job, timezone, nextRunAt: job.nextRunAtMs === null ? null : new Date(job.nextRunAtMs).toISOString() };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
