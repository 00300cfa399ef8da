import type { Migration } from '../migrations.js';
import { acceptClaimMigration } from './migrations-accept-claim.js';
import { batchedIntakeMigration } from './migrations-batched.js';

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
  {
    version: 2,
    name: 'audit, agent runs and approvals',
    sql: `
      CREATE TABLE audit (
        id BIGSERIAL PRIMARY KEY,
        at_ms BIGINT NOT NULL,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT
      );
      CREATE INDEX audit_at ON audit (at_ms);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        status TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT,
        system_prompt TEXT NOT NULL,
        prompt TEXT NOT NULL,
        output TEXT,
        error TEXT,
        steps INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        started_at_ms BIGINT NOT NULL,
        finished_at_ms BIGINT,
        inserted BIGSERIAL
      );
      CREATE INDEX runs_started ON runs (started_at_ms, inserted);
      CREATE INDEX runs_running ON runs (id) WHERE status = 'running';
      CREATE TABLE run_tool_calls (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        args TEXT NOT NULL,
        result TEXT NOT NULL,
        is_error BOOLEAN NOT NULL,
        started_at_ms BIGINT NOT NULL,
        finished_at_ms BIGINT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        tool TEXT NOT NULL,
        server TEXT,
        args_preview TEXT NOT NULL,
        annotations JSONB,
        reason TEXT,
        form JSONB,
        status TEXT NOT NULL,
        decision_reason TEXT,
        decided_by TEXT,
        values_json JSONB,
        created_at_ms BIGINT NOT NULL,
        expires_at_ms BIGINT NOT NULL,
        decided_at_ms BIGINT,
        inserted BIGSERIAL
      );
      CREATE INDEX approvals_pending ON approvals (created_at_ms, inserted) WHERE status = 'pending';
      CREATE INDEX approvals_created ON approvals (created_at_ms, inserted);
    `,
  },
  {
    version: 3,
    name: 'scheduled jobs and their run history',
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        schedule TEXT NOT NULL,
        prompt TEXT NOT NULL,
        deliver TEXT NOT NULL,
        origin TEXT NOT NULL,
        skills JSONB NOT NULL DEFAULT '[]',
        script TEXT,
        catch_up TEXT NOT NULL DEFAULT 'once',
        enabled BOOLEAN NOT NULL DEFAULT TRUE,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL,
        next_run_at_ms BIGINT,
        last_run_at_ms BIGINT,
        last_status TEXT,
        last_error TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX jobs_due ON jobs (next_run_at_ms) WHERE enabled;
      CREATE TABLE job_runs (
        id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL,
        job_name TEXT NOT NULL,
        trigger TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        scheduled_at_ms BIGINT,
        queued_at_ms BIGINT NOT NULL,
        started_at_ms BIGINT,
        finished_at_ms BIGINT,
        script_ms BIGINT,
        agent_run_id TEXT,
        output TEXT,
        error TEXT,
        delivery_target TEXT,
        delivery_ok BOOLEAN,
        delivery_detail TEXT,
        inserted BIGSERIAL
      );
      CREATE INDEX job_runs_job ON job_runs (job_id, queued_at_ms, inserted);
      CREATE INDEX job_runs_queued ON job_runs (queued_at_ms) WHERE status = 'queued';
      CREATE INDEX job_runs_running ON job_runs (id) WHERE status = 'running';
      CREATE INDEX job_runs_recent ON job_runs (queued_at_ms, inserted);
    `,
  },
  {
    version: 4,
    name: 'output deliveries and their attempts',
    sql: `
      CREATE TABLE output_deliveries (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        extra JSONB NOT NULL,
        subject JSONB NOT NULL,
        output TEXT NOT NULL,
        run_failed BOOLEAN NOT NULL,
        status TEXT NOT NULL,
        chunks_total INTEGER NOT NULL DEFAULT 0,
        chunks_sent INTEGER NOT NULL DEFAULT 0,
        detail TEXT,
        error TEXT,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL,
        inserted BIGSERIAL
      );
      CREATE INDEX output_deliveries_created ON output_deliveries (created_at_ms, inserted);
      CREATE INDEX output_deliveries_failed ON output_deliveries (status) WHERE status IN ('failed', 'uncertain', 'sending');
      CREATE INDEX output_deliveries_uncertain_webhook ON output_deliveries ((subject->>'route'), (subject->>'deliveryId')) WHERE status = 'uncertain';
      CREATE TABLE output_delivery_attempts (
        delivery_id TEXT NOT NULL REFERENCES output_deliveries (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        chunk INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        at_ms BIGINT NOT NULL,
        ok BOOLEAN NOT NULL,
        status INTEGER,
        error TEXT,
        PRIMARY KEY (delivery_id, seq)
      );
    `,
  },
  {
    version: 5,
    name: 'the node that holds each running row',
    // A node recovers after a restart only what it held itself: the rows of the others are theirs.
    sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN node_id TEXT;
      ALTER TABLE runs ADD COLUMN node_id TEXT;
      ALTER TABLE job_runs ADD COLUMN node_id TEXT;
      ALTER TABLE output_deliveries ADD COLUMN node_id TEXT;
    `,
  },
  {
    version: 6,
    name: 'the nodes of the cluster and their heartbeats',
    sql: `
      CREATE TABLE nodes (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        version TEXT NOT NULL,
        config_hash TEXT NOT NULL,
        runs_in_flight INTEGER NOT NULL DEFAULT 0,
        webhook_url TEXT,
        started_at_ms BIGINT NOT NULL,
        heartbeat_at_ms BIGINT NOT NULL,
        stopped_at_ms BIGINT,
        taken_over_by TEXT,
        taken_over_at_ms BIGINT
      );
    `,
  },
  {
    version: 7,
    name: 'cluster-wide webhook rate limits',
    // One row per request admitted in the last window, per route (at most rate_limit rows a route).
    // The check and the count are one call (one statement): the route's advisory lock is held only
    // inside the database, so N nodes together admit at most rate_limit per window. A VOLATILE
    // function reads with a new snapshot per statement: after the lock it sees the last holder's row.
    // Refused requests insert nothing. Returns NULL when admitted, else the milliseconds until the
    // stamp whose expiry makes room leaves the window (as source/webhooks/rate-limit.ts computes it).
    // Counting costs no scan: each route numbers its stamps (seq) and keeps their times in seq order
    // (a node whose clock lags stamps the latest time), so old stamps always go as a prefix and the
    // window holds last - first + 1. A high limit (30,000 a minute) stays as cheap as a low one.
    // The commit does not wait for the WAL flush: the lock is held until the commit, and a flush per
    // check capped one route near 300 checks/s on a loaded machine. A database crash may lose the
    // last stamps (a few more admissions after it), never an accepted delivery.
    sql: `
      CREATE TABLE webhook_rate_admits (
        route TEXT NOT NULL,
        seq BIGINT NOT NULL,
        at_ms BIGINT NOT NULL,
        PRIMARY KEY (route, seq)
      );
      CREATE INDEX webhook_rate_admits_at ON webhook_rate_admits (route, at_ms);
      CREATE FUNCTION webhook_rate_admit(p_route TEXT, p_at_ms BIGINT, p_window_ms BIGINT, p_limit INTEGER) RETURNS BIGINT
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        first_seq BIGINT;
        last_seq BIGINT;
        last_at BIGINT;
        room_at BIGINT;
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit' || chr(10) || p_route, 0));
        DELETE FROM webhook_rate_admits WHERE route = p_route AND at_ms <= p_at_ms - p_window_ms;
        SELECT seq INTO first_seq FROM webhook_rate_admits WHERE route = p_route ORDER BY seq LIMIT 1;
        SELECT seq, at_ms INTO last_seq, last_at FROM webhook_rate_admits WHERE route = p_route ORDER BY seq DESC LIMIT 1;
        IF last_seq IS NOT NULL AND last_seq - first_seq + 1 >= p_limit THEN
          SELECT at_ms INTO room_at FROM webhook_rate_admits WHERE route = p_route AND seq = last_seq - p_limit + 1;
          RETURN room_at + p_window_ms - p_at_ms;
        END IF;
        INSERT INTO webhook_rate_admits (route, seq, at_ms) VALUES (p_route, COALESCE(last_seq, 0) + 1, GREATEST(p_at_ms, COALESCE(last_at, p_at_ms)));
        RETURN NULL;
      END
      $$;
    `,
  },
  {
    version: 8,
    name: 'the webhook accept in one round trip',
    // The idempotency check and the insert under the (route, delivery id) lock, in one call: one
    // statement is one transaction, so the lock is held until its commit, as before, for one round
    // trip instead of five (BEGIN, lock, check, insert, COMMIT). NULL: a duplicate within the window.
    sql: `
      CREATE FUNCTION webhook_accept(p_route TEXT, p_delivery_id TEXT, p_event TEXT, p_headers TEXT, p_body BYTEA, p_prompt TEXT,
        p_skills TEXT, p_target TEXT, p_target_extra TEXT, p_replay_of TEXT, p_received_at_ms BIGINT, p_window_ms BIGINT) RETURNS BIGINT AS $$
      DECLARE
        accepted BIGINT;
      BEGIN
        IF p_window_ms IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('delivery' || chr(10) || p_route || chr(10) || p_delivery_id, 0));
          IF EXISTS (SELECT 1 FROM webhook_deliveries WHERE delivery_id = p_delivery_id AND route = p_route AND received_at_ms > p_received_at_ms - p_window_ms) THEN
            RETURN NULL;
          END IF;
        END IF;
        INSERT INTO webhook_deliveries (route, delivery_id, event, headers, body, prompt, skills, target, target_extra, state, replay_of, received_at_ms)
          VALUES (p_route, p_delivery_id, p_event, p_headers::jsonb, p_body, p_prompt, p_skills::jsonb, p_target, p_target_extra::jsonb, 'queued', p_replay_of, p_received_at_ms)
          RETURNING id INTO accepted;
        RETURN accepted;
      END
      $$ LANGUAGE plpgsql;
    `,
  },
  {
    version: 9,
    name: 'MCP OAuth state shared by the nodes',
    // One row per MCP server: what a home keeps in mcp-tokens/<server>.json (tokens, document client,
    // discovery, pending scope), <server>.client.json (registration) and <server>.cimd-off (cimd_off).
    // version counts writes of the token columns: a node waiting for a login compares it, as the
    // files' mtime. A refresh holds the row (SELECT ... FOR UPDATE) so nodes refresh one at a time.
    sql: `
      CREATE TABLE mcp_oauth (
        server TEXT PRIMARY KEY,
        tokens JSONB,
        document_client JSONB,
        discovery JSONB,
        pending_scope TEXT,
        registration JSONB,
        cimd_off TEXT,
        version BIGINT NOT NULL DEFAULT 0,
        updated_at_ms BIGINT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'the node that asked for each approval',
    // A console on any node shows which node's run waits for the decision (docs/cluster.md).
    sql: 'ALTER TABLE approvals ADD COLUMN node_id TEXT;',
  },
  batchedIntakeMigration,
  acceptClaimMigration,
];
