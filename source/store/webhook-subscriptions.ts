import type { Store } from './database.js';

/** A dynamic webhook route (spec 2.8), stored so the running gateway serves it without a restart. */
export interface Subscription {
  name: string;
  secret: string;
  events: string[];
  prompt: string | null;
  skills: string[];
  deliver: string;
  deliverExtra: Record<string, string>;
  description: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

const columns = `name, secret, events, prompt, skills, deliver, deliver_extra AS deliverExtra, description,
  created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`;

function fromRow(row: Record<string, unknown> | undefined): Subscription | undefined {
  if (!row) return undefined;
  return {
    ...(row as unknown as Subscription),
    events: JSON.parse(row.events as string) as string[],
    skills: JSON.parse(row.skills as string) as string[],
    deliverExtra: JSON.parse(row.deliverExtra as string) as Record<string, string>,
  };
}

export function createSubscriptionStore(store: Store) {
  const { db } = store;
  const byName = db.prepare(`SELECT ${columns} FROM webhook_subscriptions WHERE name = ?`);
  const all = db.prepare(`SELECT ${columns} FROM webhook_subscriptions ORDER BY name`);
  const upsert = db.prepare(`INSERT INTO webhook_subscriptions (name, secret, events, prompt, skills, deliver, deliver_extra, description, created_at_ms, updated_at_ms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET secret = excluded.secret, events = excluded.events, prompt = excluded.prompt, skills = excluded.skills,
      deliver = excluded.deliver, deliver_extra = excluded.deliver_extra, description = excluded.description, updated_at_ms = excluded.updated_at_ms`);
  const remove = db.prepare('DELETE FROM webhook_subscriptions WHERE name = ?');

  return {
    get: (name: string) => fromRow(byName.get(name) as Record<string, unknown> | undefined),
    list: (): Subscription[] => all.all().map((row) => fromRow(row as Record<string, unknown>)!),
    /**
     * Creates or replaces a subscription. The secret is kept on a re-subscribe unless a new one is
     * given; `makeSecret` is called only for a new subscription without one.
     */
    save(input: Omit<Subscription, 'secret' | 'createdAtMs' | 'updatedAtMs'> & { secret?: string }, makeSecret: () => string, now: number): { subscription: Subscription; created: boolean } {
      return store.transaction(() => {
        const existing = fromRow(byName.get(input.name) as Record<string, unknown> | undefined);
        const secret = input.secret ?? existing?.secret ?? makeSecret();
        upsert.run(input.name, secret, JSON.stringify(input.events), input.prompt, JSON.stringify(input.skills), input.deliver,
          JSON.stringify(input.deliverExtra), input.description, existing?.createdAtMs ?? now, now);
        return { subscription: fromRow(byName.get(input.name) as Record<string, unknown>)!, created: !existing };
      });
    },
    remove: (name: string): boolean => remove.run(name).changes > 0,
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;
