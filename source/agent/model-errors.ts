/** The provider's own message, with the HTTP status, and the API key scrubbed should a provider echo it. */
export async function describeModelError(error: unknown, provider: string, apiKey?: string): Promise<string> {
  const { APICallError, RetryError } = await import('ai'); // already loaded: a model call failed
  let cause = error;
  if (RetryError.isInstance(cause)) cause = cause.lastError;
  let message: string;
  if (APICallError.isInstance(cause) && cause.statusCode !== undefined) {
    message = `${provider} answered HTTP ${cause.statusCode ?? '?'}: ${cause.message}`;
  } else if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code ?? (cause.cause as NodeJS.ErrnoException | undefined)?.code;
    message = `${provider} request failed: ${cause.message}${code ? ` (${code})` : ''}`;
  } else {
    message = `${provider} request failed: ${String(cause)}`;
  }
  if (RetryError.isInstance(error)) message += ` (after ${error.errors.length} attempts)`;
  return apiKey && apiKey.length >= 4 ? message.replaceAll(apiKey, '********') : message;
}
