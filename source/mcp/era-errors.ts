// How a modern-only MCP server refuses a legacy handshake. No SDK import: the connection classifies
// failures without loading the MCP SDK.
const MODERN_ONLY_CODES = [-32022, -32021, -32020];

/**
 * A legacy `initialize` refused by a modern-only server: JSON-RPC -32022 on stdio, or an HTTP 400 whose
 * body carries -32020/-32021/-32022; also -32601 (no `initialize` at all), which the modern retry confirms.
 */
export function isModernOnlyRejection(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; message?: unknown; data?: unknown; cause?: unknown };
    if (typeof e.code === 'number' && (MODERN_ONLY_CODES.includes(e.code) || e.code === -32601)) return true;
    const text = `${typeof e.message === 'string' ? e.message : ''} ${safeJson(e.data)}`;
    if (MODERN_ONLY_CODES.some((code) => text.includes(String(code)))) return true;
    current = e.cause;
  }
  return false;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
