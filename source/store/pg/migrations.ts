import type { Migration } from '../migrations.js';

/**
 * The PostgreSQL schema as numbered migrations, the same tables as SQLite's (`../migrations.ts`)
 * as far as they are ported (docs/cluster.md). Times are milliseconds in BIGINT, JSON is JSONB,
 * bodies BYTEA. Version numbers are this schema's own.
 */
export const pgMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'webhook deliveries and subscriptions',
    sql: `
      CREATE TABLE webhook_deliveries (
        id BIGSERIAL PRIMARY KEY,
        route TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        event TEXT NOT NULL,
        headers JSONB NOT NULL,
        body BYTEA NOT NULL,
        prompt TEXT NOT NULL,
        skills JSONB NOT NULL,
        target TEXT NOT NULL,
        target_extra JSONB NOT NULL,
        state TEXT NOT NULL,
        replay_of TEXT,
        run_id TEXT,
        run_status TEXT,
        output TEXT,
        error TEXT,
        delivery_detail TEXT,
        received_at_ms BIGINT NOT NULL,
        started_at_ms BIGINT,
        finished_at_ms BIGINT
      );
      CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (id) WHERE state = 'queued';
      CREATE INDEX webhook_deliveries_running ON webhook_deliveries (id) WHERE state = 'running';
      CREATE INDEX webhook_deliveries_delivery ON webhook_deliveries (delivery_id, route, received_at_ms);
      CREATE INDEX webhook_deliveries_route ON webhook_deliveries (route, id);
      CREATE INDEX webhook_deliveries_replay ON webhook_deliveries (replay_of) WHERE replay_of IS NOT NULL;
      CREATE TABLE webhook_subscriptions (
        name TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        events JSONB NOT NULL,
        prompt TEXT,
        skills JSONB NOT NULL,
        deliver TEXT NOT NULL,
        deliver_extra JSONB NOT NULL,
        description TEXT,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL
      );
    `,
  },
];
