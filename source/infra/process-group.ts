/**
 * Bounds a child started with `detached: true` (its own process group): on timeout or abort the
 * whole group gets SIGKILL, so nothing it started outlives it. Call `release()` once it exits.
 */
export function guardProcessGroup(child: { pid?: number }, options: { timeoutMs: number; signal?: AbortSignal }) {
  const state = { timedOut: false, cancelled: false };
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => { state.timedOut = true; killGroup(); }, options.timeoutMs);
  const onAbort = () => { state.cancelled = true; killGroup(); };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  return {
    state,
    release() {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // A killed leader can leave children behind: finish the job.
      if (state.timedOut || state.cancelled) killGroup();
    },
  };
}
