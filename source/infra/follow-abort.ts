/**
 * Makes `controller` abort when `signal` does (with its reason), at once if it already has; returns
 * the function that stops following. What AbortSignal.any does, without the dependent signal and the
 * weak references it keeps for each one: a run makes one per run (docs/perf/drain.md).
 */
export function followAbort(controller: AbortController, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) {
    forward();
    return () => {};
  }
  signal.addEventListener('abort', forward, { once: true });
  return () => signal.removeEventListener('abort', forward);
}
