import type { Store } from './database.js';

export type CatchUpPolicy = 'once' | 'skip';
/** `interrupted`: the gateway stopped (a crash, kill -9) while the run was going; it counts as a failure. */
export type JobLastStatus = 'ok' | 'error' | 'silent' | 'skipped' | 'delivery_failed' | 'interrupted';
export type JobRunStatus = 'queued' | 'running' | JobLastStatus;
export type JobRunTrigger = 'schedule' | 'manual' | 'catch_up';

export interface JobRow {
  id: string;
  name: string;
  schedule: string;
  prompt: string;
  deliver: string;
  /** Where the job was created: `cli`, `console`, or the origin of the agent run that made it. */
  origin: string;
  skills: string[];
  script: string | null;
  catchUp: CatchUpPolicy;
  enabled: boolean;
  createdAtMs: number;
  updatedAtMs: number;
  nextRunAtMs: number | null;
  lastRunAtMs: number | null;
  lastStatus: JobLastStatus | null;
  lastError: string | null;
  consecutiveFailures: number;
}

export interface JobRunRow {
  id: string;
  jobId: string;
  jobName: string;
  trigger: JobRunTrigger;
  status: JobRunStatus;
  /** Why a run was skipped (overlap, empty script output, missed while down) or silent; skills a run went on without. */
  reason: string | null;
  scheduledAtMs: number | null;
  queuedAtMs: number;
  startedAtMs: number | null;
  finishedAtMs: number | null;
  scriptMs: number | null;
  agentRunId: string | null;
  output: string | null;
  error: string | null;
  deliveryTarget: string | null;
  deliveryOk: boolean | null;
  deliveryDetail: string | null;
  /** Cluster mode: the node that ran it (absent on SQLite, and while it is queued). */
  node?: string;
}

/** What an edit replaces. */
export type JobEdit = Pick<JobRow, 'name' | 'schedule' | 'prompt' | 'deliver' | 'skills' | 'script' | 'catchUp' | 'nextRunAtMs'>;

export type NewJob = Omit<JobRow, 'lastRunAtMs' | 'lastStatus' | 'lastError' | 'consecutiveFailures' | 'updatedAtMs'>;

export interface RunOutcome {
  status: JobLastStatus;
  reason?: string;
  finishedAtMs: number;
  scriptMs?: number;
  agentRunId?: string;
  output?: string;
  error?: string;
  delivery?: { target: string; ok: boolean; detail: string };
}

const jobColumns = `id, name, schedule, prompt, deliver, origin, skills, script, catch_up AS catchUp, enabled,
  created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs, next_run_at_ms AS nextRunAtMs, last_run_at_ms AS lastRunAtMs,
  last_status AS lastStatus, last_error AS lastError, consecutive_failures AS consecutiveFailures`;
const runColumns = `id, job_id AS jobId, job_name AS jobName, trigger, status, reason, scheduled_at_ms AS scheduledAtMs,
  queued_at_ms AS queuedAtMs, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs, script_ms AS scriptMs,
  agent_run_id AS agentRunId, output, error, delivery_target AS deliveryTarget, delivery_ok AS deliveryOk, delivery_detail AS deliveryDetail`;

function toJob(row: Record<string, unknown> | undefined): JobRow | undefined {
  if (!row) return undefined;
  return { ...row, skills: JSON.parse(row.skills as string) as string[], enabled: row.enabled === 1 } as unknown as JobRow;
}

function toRun(row: Record<string, unknown> | undefined): JobRunRow | undefined {
  if (!row) return undefined;
  return { ...row, deliveryOk: row.deliveryOk === null ? null : row.deliveryOk === 1 } as unknown as JobRunRow;
}

/** The statuses that count as a failure of the job (consecutive_failures). */
export function failedStatus(status: JobRunStatus): boolean {
  return status === 'error' || status === 'delivery_failed' || status === 'interrupted';
}

/** Jobs and their run history. Several processes write here: the gateway, CLI commands. */
export function createJobStore(store: Store) {
  const db = store.db;
  const insertJob = db.prepare(`INSERT INTO jobs (id, name, schedule, prompt, deliver, origin, skills, script, catch_up, enabled,
    created_at_ms, updated_at_ms, next_run_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const byId = db.prepare(`SELECT ${jobColumns} FROM jobs WHERE id = ?`);
  const byName = db.prepare(`SELECT ${jobColumns} FROM jobs WHERE name = ? ORDER BY created_at_ms`);
  const namedOther = db.prepare('SELECT id FROM jobs WHERE name = ? AND id <> ? ORDER BY created_at_ms LIMIT 1');
  const all = db.prepare(`SELECT ${jobColumns} FROM jobs ORDER BY created_at_ms, id`);
  const due = db.prepare(`SELECT ${jobColumns} FROM jobs WHERE enabled = 1 AND next_run_at_ms <= ? ORDER BY next_run_at_ms`);
  const earliest = db.prepare('SELECT MIN(next_run_at_ms) AS next FROM jobs WHERE enabled = 1');
  const versions = db.prepare('SELECT id, updated_at_ms AS updatedAtMs FROM jobs');
  const counts = db.prepare('SELECT COUNT(*) AS total, COALESCE(SUM(enabled), 0) AS enabled FROM jobs');
  const setEnabled = db.prepare('UPDATE jobs SET enabled = ?, next_run_at_ms = ?, updated_at_ms = ? WHERE id = ?');
  const setNext = db.prepare('UPDATE jobs SET next_run_at_ms = ? WHERE id = ?');
  const takeSlot = db.prepare('UPDATE jobs SET next_run_at_ms = ? WHERE id = ? AND next_run_at_ms = ?');
  const deleteJob = db.prepare('DELETE FROM jobs WHERE id = ?');
  const updateJob = db.prepare(`UPDATE jobs SET name = ?, schedule = ?, prompt = ?, deliver = ?, skills = ?, script = ?, catch_up = ?,
    next_run_at_ms = ?, updated_at_ms = ? WHERE id = ?`);
  // The row's version (updated_at_ms) moves with its last status too: other processes notice changes by it.
  const recordLast = db.prepare(`UPDATE jobs SET last_run_at_ms = ?, last_status = ?, last_error = ?,
    consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 ELSE 0 END, updated_at_ms = MAX(updated_at_ms + 1, ?) WHERE id = ?`);

  // A retry delivered a run's output: the run is ok, and its job's last status while the run is its last one.
  const runRedelivered = db.prepare(`UPDATE job_runs SET status = 'ok', error = NULL, delivery_ok = 1, delivery_detail = ?
    WHERE id = ? AND status = 'delivery_failed' RETURNING job_id AS jobId, finished_at_ms AS finishedAtMs`);
  const lastRedelivered = db.prepare(`UPDATE jobs SET last_status = 'ok', last_error = NULL, consecutive_failures = 0, updated_at_ms = MAX(updated_at_ms + 1, ?)
    WHERE id = ? AND last_status = 'delivery_failed' AND last_run_at_ms = ?`);

  const insertRun = db.prepare(`INSERT INTO job_runs (id, job_id, job_name, trigger, status, reason, scheduled_at_ms, queued_at_ms, started_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const claim = db.prepare(`UPDATE job_runs SET status = 'running', started_at_ms = ? WHERE id = ? AND status = 'queued'`);
  const finishRun = db.prepare(`UPDATE job_runs SET status = ?, reason = ?, finished_at_ms = ?, script_ms = ?, agent_run_id = ?, output = ?, error = ?,
    delivery_target = ?, delivery_ok = ?, delivery_detail = ? WHERE id = ?`);
  const runById = db.prepare(`SELECT ${runColumns} FROM job_runs WHERE id = ?`);
  const queued = db.prepare(`SELECT ${runColumns} FROM job_runs WHERE status = 'queued' ORDER BY queued_at_ms`);
  const runsOf = db.prepare(`SELECT ${runColumns} FROM job_runs WHERE job_id = ? ORDER BY queued_at_ms DESC, rowid DESC LIMIT ?`);
  const runsAll = db.prepare(`SELECT ${runColumns} FROM job_runs ORDER BY queued_at_ms DESC, rowid DESC LIMIT ?`);
  const interrupt = db.prepare(`UPDATE job_runs SET status = 'interrupted', error = ?, finished_at_ms = ? WHERE status = 'running' RETURNING job_id AS jobId`);
  const expireQueued = db.prepare(`UPDATE job_runs SET status = 'error', error = ?, finished_at_ms = ? WHERE status = 'queued' AND queued_at_ms < ?`);

  return {
    /**
     * Adds a job whose name no other job has: returns the id of the job that already has the name
     * (nothing written), or undefined when added. Check and insert in one write transaction, so of
     * two processes creating one name at once, one gets it.
     */
    insert(job: NewJob): string | undefined {
      return store.transaction(() => {
        const holder = namedOther.get(job.name, job.id) as { id: string } | undefined;
        if (holder) return holder.id;
        insertJob.run(job.id, job.name, job.schedule, job.prompt, job.deliver, job.origin, JSON.stringify(job.skills), job.script,
          job.catchUp, job.enabled ? 1 : 0, job.createdAtMs, job.createdAtMs, job.nextRunAtMs);
        return undefined;
      });
    },
    get: (id: string): JobRow | undefined => toJob(byId.get(id) as Record<string, unknown> | undefined),
    byName: (name: string): JobRow[] => byName.all(name).map((row) => toJob(row)!),
    list: (): JobRow[] => all.all().map((row) => toJob(row)!),
    due: (nowMs: number): JobRow[] => due.all(nowMs).map((row) => toJob(row)!),
    counts: (): { total: number; enabled: number } => counts.get() as { total: number; enabled: number },
    earliestNextRunMs: (): number | null => (earliest.get() as { next: number | null }).next,
    /** id -> updated time, to notice jobs changed by another process. */
    versions: (): Map<string, number> => new Map(versions.all().map((row) => [row.id as string, row.updatedAtMs as number])),
    setEnabled(id: string, enabled: boolean, nextRunAtMs: number | null, nowMs: number): void {
      setEnabled.run(enabled ? 1 : 0, nextRunAtMs, nowMs, id);
    },
    setNextRun(id: string, nextRunAtMs: number | null): void {
      setNext.run(nextRunAtMs, id);
    },
    /**
     * Takes the fire at `slotMs`: moves the job's next run from `slotMs` to `nextRunAtMs` only if it
     * is still `slotMs` (a compare-and-set). Of several processes or nodes taking one slot, one gets
     * true and fires it; the others get false (taken, or the job was paused, edited or removed).
     */
    takeSlot: (id: string, slotMs: number, nextRunAtMs: number | null): boolean => Number(takeSlot.run(nextRunAtMs, id, slotMs).changes) > 0,
    /**
     * Replaces what a person can edit; the caller recomputes the next run. As `insert`: returns the
     * id of another job that has the (new) name, and writes nothing then.
     */
    update(id: string, job: JobEdit, nowMs: number): string | undefined {
      return store.transaction(() => {
        const holder = namedOther.get(job.name, id) as { id: string } | undefined;
        if (holder) return holder.id;
        updateJob.run(job.name, job.schedule, job.prompt, job.deliver, JSON.stringify(job.skills), job.script, job.catchUp, job.nextRunAtMs, nowMs, id);
        return undefined;
      });
    },
    remove: (id: string): boolean => Number(deleteJob.run(id).changes) > 0,

    /** A run row: `queued` (waits for the gateway), `running`, or already final (`skipped`). */
    addRun(run: { id: string; jobId: string; jobName: string; trigger: JobRunTrigger; status: JobRunStatus; reason?: string; scheduledAtMs?: number; atMs: number }): void {
      insertRun.run(run.id, run.jobId, run.jobName, run.trigger, run.status, run.reason ?? null, run.scheduledAtMs ?? null, run.atMs,
        run.status === 'queued' ? null : run.atMs);
    },
    /** Takes a queued run; false when another process took it first. */
    claim: (runId: string, nowMs: number): boolean => Number(claim.run(nowMs, runId).changes) > 0,
    queued: (): JobRunRow[] => queued.all().map((row) => toRun(row)!),
    /** Records how a run ended and updates its job's last status and failure count. Kept (store.keep): settles once committed. */
    finishRun(runId: string, jobId: string, outcome: RunOutcome): Promise<void> {
      return store.keep(() => {
        finishRun.run(outcome.status, outcome.reason ?? null, outcome.finishedAtMs, outcome.scriptMs ?? null, outcome.agentRunId ?? null,
          outcome.output ?? null, outcome.error ?? null, outcome.delivery?.target ?? null,
          outcome.delivery ? (outcome.delivery.ok ? 1 : 0) : null, outcome.delivery?.detail ?? null, runId);
        recordLast.run(outcome.finishedAtMs, outcome.status, outcome.error ?? (outcome.status === 'delivery_failed' ? outcome.delivery?.detail ?? null : null),
          failedStatus(outcome.status) ? 1 : 0, outcome.finishedAtMs, jobId);
      });
    },
    /**
     * A run whose delivery failed, delivered since by `deliveries retry`: the run becomes `ok` with
     * `detail`, and so does its job's last status while that run is still the job's last one (its
     * failure count ends, as after any successful run). True when the job changed.
     */
    redelivered(runId: string, detail: string, nowMs: number): boolean {
      return store.transaction(() => {
        const run = runRedelivered.get(detail, runId) as { jobId: string; finishedAtMs: number } | undefined;
        return run !== undefined && Number(lastRedelivered.run(nowMs, run.jobId, run.finishedAtMs).changes) > 0;
      });
    },
    getRun: (runId: string): JobRunRow | undefined => toRun(runById.get(runId) as Record<string, unknown> | undefined),
    runs: (jobId: string | undefined, limit: number): JobRunRow[] =>
      (jobId ? runsOf.all(jobId, limit) : runsAll.all(limit)).map((row) => toRun(row)!),
    /**
     * At gateway start: runs a gateway that died left `running` are closed as `interrupted`, and each
     * one's job shows it as its last status and one more consecutive failure.
     */
    closeInterrupted(reason: string, nowMs: number): number {
      return store.transaction(() => {
        const jobIds = (interrupt.all(reason, nowMs) as Array<{ jobId: string }>).map((row) => row.jobId);
        for (const jobId of jobIds) recordLast.run(nowMs, 'interrupted', reason, 1, nowMs, jobId);
        return jobIds.length;
      });
    },
    /** At gateway start: run requests queued before `queuedBeforeMs` (left by a gateway that is gone) are not run late. */
    expireQueued: (reason: string, nowMs: number, queuedBeforeMs: number): number => Number(expireQueued.run(reason, nowMs, queuedBeforeMs).changes),
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
