import type { JobLastStatus, JobRow, JobRunTrigger } from '../store/jobs.js';

/** The scheduler's gateway events (merged into GatewayEventMap). */
export interface JobEventMap {
  'job.started': [{ jobId: string; jobName: string; runId: string; trigger: JobRunTrigger; atMs: number }];
  'job.finished': [{
    jobId: string;
    jobName: string;
    runId: string;
    trigger: JobRunTrigger;
    status: JobLastStatus;
    output: string;
    error: string | null;
    /** Why a run was skipped or silent. */
    reason: string | null;
    delivery: { target: string; ok: boolean; detail: string } | null;
    atMs: number;
  }];
  /** A job was created, edited, paused, resumed or removed (here or by another process). */
  'job.changed': [{ jobId: string; change: 'created' | 'updated' | 'removed'; job: JobRow | null }];
}
