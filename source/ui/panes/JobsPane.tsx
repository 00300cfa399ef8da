import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { useKeys } from '../input-router.js';
import type { JobLastStatus, JobRow } from '../../store/jobs.js';
import type { Operations } from '../../operations/index.js';
import type { ConsoleState } from '../console-model.js';
import { useFetched } from '../hooks/useFetched.js';
import { ScrollText, type TextLine } from '../components/ScrollText.js';
import { ListView, type ListRow, type PaneFilter } from '../components/ListView.js';
import type { EditTarget } from '../forms/edit-target.js';
import { clockTime, column, formatDuration } from '../format.js';
import type { PanePrompt } from '../pane-hints.js';
import { theme } from '../theme.js';

/** What `field:value` can name in this pane's filter. */
const jobFields = ['name', 'schedule', 'status', 'deliver', 'state'];

const statusColor: Record<JobLastStatus, string | undefined> = { ok: theme.ok, error: theme.error, delivery_failed: theme.error, interrupted: theme.error, silent: theme.dim, skipped: theme.warn };

/** Every job: name, schedule, next run as a countdown, last status; Enter shows the run history. */
export function JobsPane({ state, ops, height, width, focused, now, onNotice, onPrompt, onEdit, ...filter }: PaneFilter & {
  state: ConsoleState; ops: Operations; height: number; width: number; focused: boolean; now: number;
  onNotice: (text: string) => void; onPrompt: (prompt: PanePrompt | undefined) => void; onEdit: (target: EditTarget) => void;
}) {
  const running = new Set(state.snapshot.jobs.running);
  const nameWidth = Math.min(24, Math.max(6, ...state.jobs.map((job) => job.name.length)));
  const scheduleWidth = Math.min(20, Math.max(8, ...state.jobs.map((job) => job.schedule.length)));
  const rows: ListRow[] = state.jobs.map((job) => ({
    key: job.id,
    text: '',
    fields: { name: job.name, schedule: job.schedule, status: job.lastStatus ?? 'never', deliver: job.deliver, state: running.has(job.id) ? 'running' : job.enabled ? 'enabled' : 'paused' },
    parts: [
      { text: `${column(job.name, nameWidth)} ${column(job.schedule, scheduleWidth)} ` },
      { text: `${nextRun(job, now, running.has(job.id)).padEnd(14)} `, dim: !job.enabled, color: running.has(job.id) ? theme.accent : undefined },
      { text: job.lastStatus ? `last ${job.lastStatus}` : 'never ran', color: job.lastStatus ? statusColor[job.lastStatus] : theme.dim },
      { text: job.lastError ? ` ${job.lastError}` : '', dim: true },
    ],
  }));
  // n on a job asks first: a run now is a real run (model calls, tools, a delivery).
  const [confirming, setConfirming] = useState<JobRow | undefined>();
  useKeys((input) => {
    const job = confirming!;
    setConfirming(undefined);
    if (input !== 'y') return onNotice(`Job ${job.name} not run.`), true;
    onNotice(`Running job ${job.name} now...`);
    void ops.jobs.run({ job: job.id }).then(
      (run) => onNotice(`Job ${job.name} ran: ${run.status}${run.error ? ` (${run.error})` : ''}; Enter on it shows its runs.`),
      (error: unknown) => onNotice(`Job ${job.name} not run: ${(error as Error).message}`));
    return true;
  }, { layer: 'overlay', modal: true, active: confirming !== undefined });
  // The question goes to the console's bottom line, which is wider than the pane.
  const question = confirming
    ? `Run ${confirming.name} now? y / any other key · ${running.has(confirming.id) ? 'it is running: recorded as skipped' : `a real run, delivered to ${confirming.deliver}`}`
    : undefined;
  useEffect(() => {
    if (!question) return undefined;
    onPrompt({ text: question, color: theme.caution });
    return () => onPrompt(undefined);
  }, [question, onPrompt]);
  return (
    <Box flexDirection="column">
    <ListView
      rows={rows} height={height} width={width} focused={focused} title="Jobs" scopes={['jobs']} {...filter} fields={jobFields}
      empty="No jobs. Create one with /cron create <schedule> <prompt> (or switchboard cron create)."
      onCommand={(command, row) => {
        if (command === 'item.edit') return row ? onEdit({ kind: 'job', id: row.key }) : onNotice('No job selected.');
        if (command === 'job.runNow') {
          const job = state.jobs.find((candidate) => candidate.id === row?.key);
          return job ? setConfirming(job) : onNotice('No job selected.');
        }
      }}
      details={(row) => {
        const job = state.jobs.find((candidate) => candidate.id === row.key);
        if (!job) return <Text>This job was removed.</Text>;
        return <JobDetails job={job} ops={ops} height={height} width={width} focused={focused} />;
      }}
    />
    </Box>
  );
}

/** Enter on a job: the job and its run history, read through operations (again when the job changes). */
function JobDetails({ job, ops, height, width, focused }: { job: JobRow; ops: Operations; height: number; width: number; focused: boolean }) {
  const limit = 200;
  const fetched = useFetched(() => ops.jobs.runs({ job: job.id, limit }), `${job.id}:${limit}`, (job.lastRunAtMs ?? 0) + job.updatedAtMs);
  const runs = fetched.value?.runs ?? [];
  const lines: TextLine[] = [
    { text: `${job.name} (${job.id}) · ${job.schedule} · deliver ${job.deliver} · ${job.enabled ? 'enabled' : 'paused'}`, bold: true },
    ...job.prompt.split('\n').map((text, index) => ({ text: index === 0 ? `Prompt: ${text}` : `        ${text}`, dim: true })),
    ...(fetched.error ? [{ text: `Run history not available: ${fetched.error}`, color: theme.error }] : fetched.value && runs.length === 0 ? [{ text: 'No runs yet.', dim: true }] : []),
    ...runs.map((run) => ({
      text: `${clockTime(run.startedAtMs ?? run.queuedAtMs)} ${run.trigger.padEnd(8)} ${run.status.padEnd(15)} ${run.finishedAtMs && run.startedAtMs ? formatDuration(run.finishedAtMs - run.startedAtMs).padEnd(7) : '       '} ${run.node ? `@${run.node} ` : ''}${run.reason ?? run.error ?? (run.deliveryTarget ? `${run.deliveryTarget}: ${run.deliveryDetail ?? ''}` : '')}`,
      color: run.status in statusColor ? statusColor[run.status as JobLastStatus] : undefined,
    })),
  ];
  return <ScrollText lines={lines} height={height} width={width} focused={focused} hint="Esc back · e edit · n run now · /cron pause|resume|remove <name>" />;
}

function nextRun(job: JobRow, now: number, running: boolean): string {
  if (running) return 'running';
  if (!job.enabled) return 'paused';
  if (job.nextRunAtMs === null) return 'no next run';
  return `in ${formatDuration(job.nextRunAtMs - now)}`;
}
