/** The agent's "nothing to report": an answer containing it is not delivered, for jobs and webhook runs alike. */
export const SILENT_MARKER = '[SILENT]';

/**
 * Why a run's answer is not delivered, or undefined when it is. Only successful runs can be silent:
 * a failed run is always delivered with its error, whatever the answer says.
 */
export function silentReason(run: { ok: boolean; output: string }): string | undefined {
  return run.ok && run.output.includes(SILENT_MARKER) ? `the answer contains ${SILENT_MARKER}: not delivered` : undefined;
}
