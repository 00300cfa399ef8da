/** One try at sending one chunk. */
export type AttemptOutcome =
  | { ok: true; status?: number }
  | { ok: false; status?: number; error: string; retryable: boolean; retryAfterMs?: number };

export interface AttemptRecord {
  chunk: number;
  attempt: number;
  atMs: number;
  ok: boolean;
  status: number | null;
  error: string | null;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

/**
 * Sends one chunk, retrying network errors, 5xx and 429 with exponential backoff (Retry-After
 * wins when the service gives one). Every attempt is reported.
 */
export async function sendWithRetries(
  send: () => Promise<AttemptOutcome>,
  policy: RetryPolicy,
  report: (attempt: Omit<AttemptRecord, 'chunk'>) => void,
  now: () => number,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<AttemptOutcome> {
  let outcome: AttemptOutcome = { ok: false, error: 'not attempted', retryable: false };
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    outcome = await send().catch((error: unknown) => ({ ok: false as const, error: describeNetworkError(error), retryable: true }));
    report({ attempt, atMs: now(), ok: outcome.ok, status: outcome.status ?? null, error: outcome.ok ? null : outcome.error });
    if (outcome.ok || !outcome.retryable || attempt === policy.attempts) return outcome;
    const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
    await sleep(Math.min(outcome.retryAfterMs ?? backoff, policy.maxDelayMs));
  }
  return outcome;
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base}: ${cause.message}` : base;
}

/** `Retry-After` as seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** POSTs and classifies the answer. `check` can reject a 2xx body (Slack's `ok: false`). */
export async function postHttp(url: string, init: { headers: Record<string, string>; body: string }, check?: (body: unknown) => string | undefined): Promise<AttemptOutcome> {
  const response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.ok) {
    const problem = check?.(safeJson(text));
    return problem ? { ok: false, status: response.status, error: problem, retryable: problem === 'ratelimited' } : { ok: true, status: response.status };
  }
  const retryable = response.status === 429 || response.status >= 500;
  const wait = retryAfterMs(response.headers.get('retry-after'), Date.now());
  return { ok: false, status: response.status, error: `HTTP ${response.status}: ${text.slice(0, 300)}`, retryable, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
