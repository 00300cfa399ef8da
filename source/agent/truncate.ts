/** Keeps the head and the tail of a long text, with a marker saying how much was cut. */
export function truncateMiddle(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const half = Math.floor(maxBytes / 2);
  const buffer = Buffer.from(text);
  const head = buffer.subarray(0, half).toString('utf8');
  const tail = buffer.subarray(bytes - half).toString('utf8');
  return `${head}\n[... ${bytes - 2 * half} bytes truncated ...]\n${tail}`;
}

export const STORED_TEXT_BYTES = 16 * 1024;

/** JSON for the store, cut to 16 KiB. */
export function storedJson(value: unknown): string {
  return truncateMiddle(JSON.stringify(value ?? null), STORED_TEXT_BYTES);
}
