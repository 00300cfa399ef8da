/**
 * The idempotency keys of journal deliveries not yet in state.db, held without a string per
 * delivery: a burst of 100,000 kept as strings in a Set cost the intake about 8% of its time, most
 * of it garbage collection. A 30-bit hash of the key maps to the journal offset of its delivery,
 * whose key is read back to confirm a match (only for a real duplicate, or the rare second key with
 * the same hash); a key whose hash is already taken is kept whole in a small set.
 */
export function createWaitingKeys(keyAt: (offset: number) => string | undefined) {
  const byHash = new Map<number, number>();
  const collided = new Set<string>();
  return {
    has(key: string, hash: number): boolean {
      const offset = byHash.get(hash);
      if (offset !== undefined && keyAt(offset) === key) return true;
      return collided.size > 0 && collided.has(key);
    },
    /** A key not already waiting (checked with `has`), at the journal offset of its delivery. */
    add(key: string, hash: number, offset: number): void {
      if (byHash.has(hash)) collided.add(key);
      else byHash.set(hash, offset);
    },
    /** The delivery at `offset` is in state.db (or was never written). */
    delete(key: string, hash: number, offset: number): void {
      if (byHash.get(hash) === offset) byHash.delete(hash);
      else collided.delete(key);
    },
    get size(): number {
      return byHash.size + collided.size;
    },
  };
}
