import fs from 'node:fs';
import type { Logger } from 'pino';
import { truncateMiddle } from '../agent/truncate.js';
import type { RunAgent } from '../agent/types.js';
import { silentReason } from '../delivery/silent.js';
import type { Deliver } from '../delivery/types.js';
import type { JobRow, RunOutcome } from '../store/jobs.js';
import type { PreRunWorkers } from './pre-run-workers.js';
import type { ScriptRunResult } from './pre-run-types.js';

export interface JobExecutionDeps {
  runAgent: RunAgent;
  deliver: Deliver;
  preRun: Pick<PreRunWorkers, 'run'>;
  scriptTimeoutMs: number;
  logger: Logger;
  now: () => number;
}

const STORED_OUTPUT_BYTES = 64 * 1024;
const SCRIPT_TEXT_BYTES = 32 * 1024;

/**
 * One run of one job: the pre-run script in a Bree worker (if any), the agent run in this process,
 * then delivery. Never throws: every failure ends as an outcome with its reason.
 */
export async function executeJob(deps: JobExecutionDeps, job: JobRow, runId: string, signal: AbortSignal): Promise<RunOutcome> {
  let scriptBlock = '';
  let scriptError: string | undefined;
  let scriptMs: number | undefined;
  const moved = job.script ? scriptMoved(job.script) : undefined;
  if (job.script && moved) {
    // Checked at creation, checked again here: a path swapped for a symlink since then is not followed.
    scriptError = `pre-run script ${job.script} of job ${job.name} was not run: ${moved}`;
    scriptBlock = `## Script error\n\n${scriptError}`;
  } else if (job.script) {
    const result = await deps.preRun.run({ fireId: runId, script: job.script, timeoutMs: deps.scriptTimeoutMs });
    scriptMs = result.durationMs;
    scriptError = describeScriptFailure(result, job.script, deps.scriptTimeoutMs);
    if (!scriptError && result.stdout.trim() === '') {
      return { status: 'skipped', reason: 'the pre-run script succeeded with empty output, so the agent was not run', finishedAtMs: deps.now(), scriptMs };
    }
    scriptBlock = scriptError ? scriptErrorBlock(scriptError, result) : `## Script output\n\n${fence(result.stdout)}`;
  }

  const prompt = scriptBlock ? `${job.prompt}\n\n${scriptBlock}` : job.prompt;
  const run = await deps.runAgent({ prompt, skills: job.skills, origin: `job:${job.id}`, signal });
  const output = truncateMiddle(run.output, STORED_OUTPUT_BYTES);
  // A skill removed or broken since the job was created: the run went on without it, and its record says so.
  const skipped = run.skillWarnings?.length ? `ran without skill(s): ${run.skillWarnings.join('; ')}` : undefined;
  const withSkipped = (reason?: string) => [reason, skipped].filter(Boolean).join('; ') || undefined;
  const base = { finishedAtMs: deps.now(), scriptMs, agentRunId: run.runId, output, ...(skipped ? { reason: skipped } : {}) };

  const runError = run.status === 'ok' ? undefined : `agent run ${run.status}: ${run.error ?? 'no detail'}`;
  const error = [scriptError, runError].filter(Boolean).join('; ') || undefined;
  if (error) {
    // Failed runs are always delivered, with the error, whatever the answer says.
    const text = `Job "${job.name}" (${job.id}) failed: ${error}${run.output ? `\n\n${run.output}` : ''}`;
    const delivery = await deliverOutput(deps, job, runId, text, true);
    return { ...base, status: 'error', error, finishedAtMs: deps.now(), delivery };
  }
  const silent = silentReason({ ok: true, output: run.output });
  if (silent) return { ...base, status: 'silent', reason: withSkipped(silent) };
  const delivery = await deliverOutput(deps, job, runId, run.output, false);
  return {
    ...base,
    finishedAtMs: deps.now(),
    status: delivery.ok ? 'ok' : 'delivery_failed',
    delivery,
    ...(delivery.ok ? {} : { error: `delivery to ${job.deliver} failed: ${delivery.detail}` }),
  };
}

async function deliverOutput(deps: JobExecutionDeps, job: JobRow, runId: string, output: string, failed: boolean) {
  const result = await deps.deliver({
    target: job.deliver,
    extra: { origin: job.origin },
    output,
    subject: { kind: 'job', jobId: job.id, jobName: job.name, runId },
    failed,
  });
  if (!result.ok) deps.logger.warn({ jobId: job.id, runId, target: job.deliver }, `Delivery of job ${job.name} (${job.id}) failed: ${result.reason}`);
  return result.ok ? { target: job.deliver, ok: true, detail: result.detail } : { target: job.deliver, ok: false, detail: result.reason };
}

/** Why the script counts as failed, or undefined when it succeeded. */
export function describeScriptFailure(result: ScriptRunResult, script: string, timeoutMs: number): string | undefined {
  if (result.failure) return `pre-run script ${script} could not run: ${result.failure}`;
  if (result.timedOut) return `pre-run script ${script} timed out after ${timeoutMs / 1000} s (cron.script_timeout_seconds); its process tree was killed`;
  if (result.cancelled) return `pre-run script ${script} was cancelled (the gateway is stopping)`;
  if (result.exitCode !== 0) return `pre-run script ${script} exited with ${result.exitCode === null ? `signal ${result.signal ?? 'unknown'}` : `code ${result.exitCode}`}`;
  return undefined;
}

function scriptErrorBlock(error: string, result: ScriptRunResult): string {
  const parts = [`## Script error\n\n${error}`];
  if (result.stderr.trim()) parts.push(`stderr:\n${fence(result.stderr)}`);
  if (result.stdout.trim()) parts.push(`stdout:\n${fence(result.stdout)}`);
  return parts.join('\n\n');
}

function fence(text: string): string {
  const body = truncateMiddle(text.replace(/\s+$/, ''), SCRIPT_TEXT_BYTES);
  const ticks = body.includes('```') ? '~~~~' : '```';
  return `${ticks}\n${body}\n${ticks}`;
}

/**
 * Why a job's script path no longer is what was checked when the job was created (the stored path
 * is the real path then), or undefined: a symlink swapped in, or the file gone.
 */
export function scriptMoved(script: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(script);
  } catch {
    return 'the file is gone';
  }
  return real === script ? undefined : `it now resolves to ${real} (a symlink put there after the job was created); edit the job to point at the script itself`;
}
