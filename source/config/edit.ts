/** Reads a value at a key path; undefined when any step is missing. */
export function getAt(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** A copy of `root` with the value at the key path replaced (or removed when value is undefined). */
export function setAt<T>(root: T, segments: readonly string[], value: unknown): T {
  const [head, ...rest] = segments;
  if (head === undefined) return value as T;
  if (Array.isArray(root) && /^\d+$/.test(head)) {
    const copy = [...root];
    if (rest.length === 0 && value === undefined) copy.splice(Number(head), 1);
    else copy[Number(head)] = setAt(copy[Number(head)], rest, value);
    return copy as T;
  }
  const base = root !== null && typeof root === 'object' && !Array.isArray(root) ? (root as Record<string, unknown>) : {};
  const copy: Record<string, unknown> = { ...base };
  if (rest.length === 0 && value === undefined) delete copy[head];
  // Own properties only: a key such as `__proto__` is data here, never the object's prototype.
  else Object.defineProperty(copy, head, { value: setAt(Object.hasOwn(copy, head) ? copy[head] : undefined, rest, value), enumerable: true, writable: true, configurable: true });
  return copy as T;
}

/** `config set` values are JSON; text that is not JSON is taken as a string (`config set timezone UTC`). */
export function parseCliValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
