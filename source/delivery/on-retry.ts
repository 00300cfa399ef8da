/**
 * The delivery detail of a webhook delivery or job run whose output went out on a retry (`deliveries
 * retry`): what the retry did, with what the first send said, so the record keeps its history.
 */
export function deliveredOnRetry(detail: string, before: string | null): string {
  return `${detail} (delivered on retry; before: ${before ?? 'no detail'})`;
}
