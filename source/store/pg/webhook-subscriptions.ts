import type { SubscriptionBackend } from '../async-domains.js';
import type { Subscription } from '../webhook-subscriptions.js';
import { lockKey, type PgStore } from './pg-store.js';

const columns = `name, secret, events, prompt, skills, deliver, deliver_extra AS "deliverExtra", description,
  created_at_ms AS "createdAtMs", updated_at_ms AS "updatedAtMs"`;

/** Dynamic webhook routes on PostgreSQL: shared by every node (a subscription made on one is served by all). */
export function createPgSubscriptionStore(store: PgStore): SubscriptionBackend {
  return {
    get: async (name) => (await store.query<Subscription>(`SELECT ${columns} FROM webhook_subscriptions WHERE name = $1`, [name])).rows[0],
    list: async () => (await store.query<Subscription>(`SELECT ${columns} FROM webhook_subscriptions ORDER BY name`)).rows,
    save: (input, makeSecret, now) => store.transaction(async (client) => {
      // Two nodes subscribing one name at once: the second waits and keeps the first one's secret.
      await lockKey(client, `subscription\n${input.name}`);
      const { rows: [existing] } = await client.query<Subscription>(`SELECT ${columns} FROM webhook_subscriptions WHERE name = $1`, [input.name]);
      const secret = input.secret ?? existing?.secret ?? makeSecret();
      const { rows: [subscription] } = await client.query<Subscription>(`INSERT INTO webhook_subscriptions (name, secret, events, prompt, skills, deliver, deliver_extra, description, created_at_ms, updated_at_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
        ON CONFLICT (name) DO UPDATE SET secret = excluded.secret, events = excluded.events, prompt = excluded.prompt, skills = excluded.skills,
          deliver = excluded.deliver, deliver_extra = excluded.deliver_extra, description = excluded.description, updated_at_ms = excluded.updated_at_ms
        RETURNING ${columns}`,
      [input.name, secret, JSON.stringify(input.events), input.prompt, JSON.stringify(input.skills), input.deliver, JSON.stringify(input.deliverExtra), input.description, existing?.createdAtMs ?? now, now]);
      return { subscription: subscription!, created: !existing };
    }),
    remove: async (name) => ((await store.query('DELETE FROM webhook_subscriptions WHERE name = $1', [name])).rowCount ?? 0) > 0,
  };
}
