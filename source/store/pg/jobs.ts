import type pg from 'pg';
import type { JobBackend } from '../async-domains.js';
import { failedStatus, type JobRow, type JobRunRow } from '../jobs.js';
import { lockKey, type PgStore } from './pg-store.js';

const jobColumns = `id, name, schedule, prompt, deliver, origin, skills, script, catch_up AS "catchUp", enabled,
  created_at_ms AS "createdAtMs", updated_at_ms AS "updatedAtMs", next_run_at_ms AS "nextRunAtMs", last_run_at_ms AS "lastRunAtMs",
  last_status AS "lastStatus", last_error AS "lastError", consecutive_failures AS "consecutiveFailures"`;
const runColumns = `id, job_id AS "jobId", job_name AS "jobName", trigger, status, reason, scheduled_at_ms AS "scheduledAtMs",
  queued_at_ms AS "queuedAtMs", started_at_ms AS "startedAtMs", finished_at_ms AS "finishedAtMs", script_ms AS "scriptMs",
  agent_run_id AS "agentRunId", output, error, delivery_target AS "deliveryTarget", delivery_ok AS "deliveryOk", delivery_detail AS "deliveryDetail", node_id AS "node"`;

/** The row's version (updated_at_ms) moves with its last status too: the other nodes notice changes by it. */
const recordLast = `UPDATE jobs SET last_run_at_ms = $1, last_status = $2, last_error = $3,
  consecutive_failures = CASE WHEN $4 THEN consecutive_failures + 1 ELSE 0 END, updated_at_ms = GREATEST(updated_at_ms + 1, $1) WHERE id = $5`;

/**
 * In a transaction about to give a job `name`: the id of another job that has it, or undefined.
 * Decision: names are kept unique by a lock on the name, not by a unique index, because SQLite's
 * schema has none (files from before names were unique may hold two jobs of one name) and the two
 * backends keep one schema. The lock makes nodes creating or renaming to one name take turns: the
 * second reads what the first committed (READ COMMITTED), so one wins and the others are refused.
 */
async function nameHolder(client: pg.PoolClient, name: string, exceptId: string): Promise<string | undefined> {
  await lockKey(client, `job name\n${name}`);
  const { rows } = await client.query<{ id: string }>('SELECT id FROM jobs WHERE name = $1 AND id <> $2 ORDER BY created_at_ms LIMIT 1', [name, exceptId]);
  return rows[0]?.id;
}

/** Jobs and their run history on PostgreSQL: every node schedules from the same rows. */
export function createPgJobStore(store: PgStore, nodeId: string): JobBackend {
  const jobs = async (where: string, params: unknown[] = []) => (await store.query<JobRow>(`SELECT ${jobColumns} FROM jobs ${where}`, params)).rows;
  // A run's node only when it has one (queued runs have none yet), as on SQLite, which has none.
  const runs = async (where: string, params: unknown[] = []) => (await store.query<JobRunRow & { node: string | null }>(`SELECT ${runColumns} FROM job_runs ${where}`, params)).rows
    .map(({ node, ...run }) => (node ? { ...run, node } : run));
  const changed = async (sql: string, params: unknown[]) => (await store.query(sql, params)).rowCount ?? 0;
  return {
    insert: (job) => store.transaction(async (client) => {
      const holder = await nameHolder(client, job.name, job.id);
      if (holder) return holder;
      await client.query(`INSERT INTO jobs (id, name, schedule, prompt, deliver, origin, skills, script, catch_up, enabled, created_at_ms, updated_at_ms, next_run_at_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12)`,
      [job.id, job.name, job.schedule, job.prompt, job.deliver, job.origin, JSON.stringify(job.skills), job.script, job.catchUp, job.enabled, job.createdAtMs, job.nextRunAtMs]);
      return undefined;
    }),
    get: async (id) => (await jobs('WHERE id = $1', [id]))[0],
    byName: (name) => jobs('WHERE name = $1 ORDER BY created_at_ms', [name]),
    list: () => jobs('ORDER BY created_at_ms, id'),
    due: (nowMs) => jobs('WHERE enabled AND next_run_at_ms <= $1 ORDER BY next_run_at_ms', [nowMs]),
    counts: async () => (await store.query<{ total: number; enabled: number }>('SELECT COUNT(*)::int AS total, COUNT(*) FILTER (WHERE enabled)::int AS enabled FROM jobs')).rows[0]!,
    earliestNextRunMs: async () => (await store.query<{ next: number | null }>('SELECT MIN(next_run_at_ms) AS next FROM jobs WHERE enabled')).rows[0]!.next,
    versions: async () => new Map((await store.query<{ id: string; updatedAtMs: number }>('SELECT id, updated_at_ms AS "updatedAtMs" FROM jobs')).rows.map((row) => [row.id, row.updatedAtMs])),
    async setEnabled(id, enabled, nextRunAtMs, nowMs) {
      await store.query('UPDATE jobs SET enabled = $1, next_run_at_ms = $2, updated_at_ms = $3 WHERE id = $4', [enabled, nextRunAtMs, nowMs, id]);
    },
    async setNextRun(id, nextRunAtMs) {
      await store.query('UPDATE jobs SET next_run_at_ms = $1 WHERE id = $2', [nextRunAtMs, id]);
    },
    // The row lock of the UPDATE: of nodes taking one slot at once, the first changes the row, the
    // others re-read it after its commit, find another next run and change nothing.
    takeSlot: async (id, slotMs, nextRunAtMs) => (await changed('UPDATE jobs SET next_run_at_ms = $1 WHERE id = $2 AND next_run_at_ms = $3', [nextRunAtMs, id, slotMs])) > 0,
    update: (id, job, nowMs) => store.transaction(async (client) => {
      const holder = await nameHolder(client, job.name, id);
      if (holder) return holder;
      await client.query(`UPDATE jobs SET name = $1, schedule = $2, prompt = $3, deliver = $4, skills = $5, script = $6, catch_up = $7, next_run_at_ms = $8, updated_at_ms = $9 WHERE id = $10`,
        [job.name, job.schedule, job.prompt, job.deliver, JSON.stringify(job.skills), job.script, job.catchUp, job.nextRunAtMs, nowMs, id]);
      return undefined;
    }),
    remove: async (id) => (await changed('DELETE FROM jobs WHERE id = $1', [id])) > 0,
    async addRun(run) {
      await store.query(`INSERT INTO job_runs (id, job_id, job_name, trigger, status, reason, scheduled_at_ms, queued_at_ms, started_at_ms, node_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [run.id, run.jobId, run.jobName, run.trigger, run.status, run.reason ?? null, run.scheduledAtMs ?? null, run.atMs, run.status === 'queued' ? null : run.atMs, run.status === 'queued' ? null : nodeId]);
    },
    // The row lock of the UPDATE: of nodes claiming one queued run at once, one gets it.
    claim: async (runId, nowMs) => (await changed(`UPDATE job_runs SET status = 'running', started_at_ms = $1, node_id = $3 WHERE id = $2 AND status = 'queued'`, [nowMs, runId, nodeId])) > 0,
    queued: () => runs(`WHERE status = 'queued' ORDER BY queued_at_ms, inserted`),
    finishRun: (runId, jobId, outcome) => store.transaction(async (client) => {
      await client.query(`UPDATE job_runs SET status = $1, reason = $2, finished_at_ms = $3, script_ms = $4, agent_run_id = $5, output = $6, error = $7,
        delivery_target = $8, delivery_ok = $9, delivery_detail = $10 WHERE id = $11`,
      [outcome.status, outcome.reason ?? null, outcome.finishedAtMs, outcome.scriptMs ?? null, outcome.agentRunId ?? null, outcome.output ?? null, outcome.error ?? null,
        outcome.delivery?.target ?? null, outcome.delivery ? outcome.delivery.ok : null, outcome.delivery?.detail ?? null, runId]);
      await client.query(recordLast, [outcome.finishedAtMs, outcome.status, outcome.error ?? (outcome.status === 'delivery_failed' ? outcome.delivery?.detail ?? null : null),
        failedStatus(outcome.status), jobId]);
    }),
    redelivered: (runId, detail, nowMs) => store.transaction(async (client) => {
      const { rows: [run] } = await client.query<{ jobId: string; finishedAtMs: number }>(`UPDATE job_runs SET status = 'ok', error = NULL, delivery_ok = TRUE, delivery_detail = $1
        WHERE id = $2 AND status = 'delivery_failed' RETURNING job_id AS "jobId", finished_at_ms AS "finishedAtMs"`, [detail, runId]);
      if (!run) return false;
      const { rowCount } = await client.query(`UPDATE jobs SET last_status = 'ok', last_error = NULL, consecutive_failures = 0, updated_at_ms = GREATEST(updated_at_ms + 1, $1)
        WHERE id = $2 AND last_status = 'delivery_failed' AND last_run_at_ms = $3`, [nowMs, run.jobId, run.finishedAtMs]);
      return (rowCount ?? 0) > 0;
    }),
    getRun: async (runId) => (await runs('WHERE id = $1', [runId]))[0],
    runs: (jobId, limit) => (jobId ? runs('WHERE job_id = $1 ORDER BY queued_at_ms DESC, inserted DESC LIMIT $2', [jobId, limit]) : runs('ORDER BY queued_at_ms DESC, inserted DESC LIMIT $1', [limit])),
    // As on SQLite: every running run. With several nodes: only the runs of a node that stopped (docs/cluster.md).
    closeInterrupted: (reason, nowMs) => store.transaction(async (client) => {
      const { rows } = await client.query<{ jobId: string }>(`UPDATE job_runs SET status = 'interrupted', error = $1, finished_at_ms = $2 WHERE status = 'running' AND node_id = $3 RETURNING job_id AS "jobId"`, [reason, nowMs, nodeId]);
      for (const { jobId } of rows) await client.query(recordLast, [nowMs, 'interrupted', reason, true, jobId]);
      return rows.length;
    }),
    expireQueued: (reason, nowMs, queuedBeforeMs) => changed(`UPDATE job_runs SET status = 'error', error = $1, finished_at_ms = $2 WHERE status = 'queued' AND queued_at_ms < $3`, [reason, nowMs, queuedBeforeMs]),
  };
}
