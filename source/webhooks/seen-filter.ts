/** Bits per filter: 2 MB each; about 1% false "maybe" at 1.7 million ids, more beyond (never a wrong "no"). */
const BITS = 1 << 24;
const HASHES = 7;

/**
 * Two independent 32-bit hashes of an idempotency key (route, delivery id), FNV-1a style with two
 * primes, without joining the two into a new string; a filter's k probes are h1 + i * h2.
 */
export function hashKey(route: string, deliveryId: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ deliveryId.length;
  for (let i = 0; i < route.length; i += 1) {
    const code = route.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  a = Math.imul(a ^ 10, 0x01000193); // the separator: ("ab", "c") and ("a", "bc") differ
  b = Math.imul(b ^ 10, 0x5bd1e995);
  for (let i = 0; i < deliveryId.length; i += 1) {
    const code = deliveryId.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return [a >>> 0, (b >>> 0) | 1];
}

/**
 * The idempotency keys (route and delivery id) accepted within the dedup window, as two Bloom
 * filters: a "no" is certain, a "maybe" is asked of state.db. It spares the burst intake a state.db
 * read per webhook (an index lookup through a growing WAL, an eighth of its time). Keys go into the
 * current filter; every window the current one becomes the previous and a fresh one starts, so the
 * two together always hold every key of the last window (and some older ones, which only cost a
 * lookup).
 */
export function createSeenFilter(windowMs: number, now: () => number) {
  let current = new Uint32Array(BITS / 32);
  let previous = new Uint32Array(BITS / 32);
  let rotatedAtMs = now();

  const rotate = () => {
    if (now() - rotatedAtMs < windowMs) return;
    previous = current;
    current = new Uint32Array(BITS / 32);
    rotatedAtMs = now();
  };
  const has = (bits: Uint32Array, a: number, b: number): boolean => {
    for (let i = 0; i < HASHES; i += 1) {
      const bit = (a + Math.imul(i, b)) & (BITS - 1);
      if ((bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  };

  const set = (a: number, b: number): void => {
    for (let i = 0; i < HASHES; i += 1) {
      const bit = (a + Math.imul(i, b)) & (BITS - 1);
      current[bit >>> 5] = (current[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
  };

  return {
    add(route: string, deliveryId: string): void {
      rotate();
      const [a, b] = hashKey(route, deliveryId);
      set(a, b);
    },
    /** Adds a key (by its hashKey); answers whether it may have been there before (false: certainly not; true: ask the store). */
    checkAndAdd(a: number, b: number): boolean {
      rotate();
      const maybe = has(current, a, b) || has(previous, a, b);
      set(a, b);
      return maybe;
    },
  };
}

export type SeenFilter = ReturnType<typeof createSeenFilter>;
