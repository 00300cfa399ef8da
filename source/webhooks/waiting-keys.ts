/** One idempotency key as text (only built to confirm a match or for a hash already taken). */
export const idempotencyKey = (route: string, deliveryId: string): string => `${route}\n${deliveryId}`;

/**
 * The idempotency keys of journal deliveries not yet in state.db, held without a string per
 * delivery: a burst of 100,000 kept as strings in a Set cost the intake about 8% of its time, most
 * of it garbage collection. A 30-bit hash of the key (`slot`) maps to the journal offset of its
 * delivery, whose key is read back to confirm a match (only for a real duplicate, or the rare second
 * key with the same slot); a key whose slot is already taken is kept whole in a small set.
 */
export function createWaitingKeys(keyAt: (offset: number) => string | undefined) {
  const bySlot = new Map<number, number>();
  const collided = new Set<string>();
  return {
    has(route: string, deliveryId: string, slot: number): boolean {
      const offset = bySlot.get(slot);
      if (offset !== undefined && keyAt(offset) === idempotencyKey(route, deliveryId)) return true;
      return collided.size > 0 && collided.has(idempotencyKey(route, deliveryId));
    },
    /** A key not already waiting (checked with `has`), at the journal offset of its delivery. */
    add(route: string, deliveryId: string, slot: number, offset: number): void {
      if (bySlot.has(slot)) collided.add(idempotencyKey(route, deliveryId));
      else bySlot.set(slot, offset);
    },
    /** The delivery at `offset` is in state.db (or was never written). */
    delete(route: string, deliveryId: string, slot: number, offset: number): void {
      if (bySlot.get(slot) === offset) bySlot.delete(slot);
      else if (collided.size > 0) collided.delete(idempotencyKey(route, deliveryId));
    },
    get size(): number {
      return bySlot.size + collided.size;
    },
  };
}
