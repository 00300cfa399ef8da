/**
 * The whole state schema, as numbered migrations applied in order. Each later issue appends one;
 * nothing else in the code base runs DDL.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'audit',
    sql: `
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at_ms INTEGER NOT NULL,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT
      );
      CREATE INDEX audit_at ON audit (at_ms);
    `,
  },
  {
    version: 2,
    name: 'agent runs and approvals',
    sql: `
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
        started_at_ms INTEGER NOT NULL,
        finished_at_ms INTEGER
      );
      CREATE INDEX runs_started ON runs (started_at_ms);
      CREATE TABLE run_tool_calls (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        args TEXT NOT NULL,
        result TEXT NOT NULL,
        is_error INTEGER NOT NULL,
        started_at_ms INTEGER NOT NULL,
        finished_at_ms INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        tool TEXT NOT NULL,
        server TEXT,
        args_preview TEXT NOT NULL,
        annotations TEXT,
        reason TEXT,
        form TEXT,
        status TEXT NOT NULL,
        decision_reason TEXT,
        decided_by TEXT,
        values_json TEXT,
        created_at_ms INTEGER NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        decided_at_ms INTEGER
      );
      CREATE INDEX approvals_status ON approvals (status);
    `,
  },
  {
    version: 3,
    name: 'webhook deliveries, idempotency keys and subscriptions',
    sql: `
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        route TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        event TEXT NOT NULL,
        headers TEXT NOT NULL,
        body BLOB NOT NULL,
        prompt TEXT NOT NULL,
        skills TEXT NOT NULL,
        target TEXT NOT NULL,
        target_extra TEXT NOT NULL,
        state TEXT NOT NULL,
        replay_of TEXT,
        run_id TEXT,
        run_status TEXT,
        output TEXT,
        error TEXT,
        delivery_detail TEXT,
        received_at_ms INTEGER NOT NULL,
        started_at_ms INTEGER,
        finished_at_ms INTEGER
      );
      CREATE INDEX webhook_deliveries_state ON webhook_deliveries (state, id);
      CREATE INDEX webhook_deliveries_delivery ON webhook_deliveries (delivery_id);
      CREATE INDEX webhook_deliveries_route ON webhook_deliveries (route, id);
      CREATE TABLE webhook_idempotency (
        route TEXT NOT NULL,
        delivery_id TEXT NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        PRIMARY KEY (route, delivery_id)
      );
      CREATE INDEX webhook_idempotency_expiry ON webhook_idempotency (expires_at_ms);
      CREATE TABLE webhook_subscriptions (
        name TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        events TEXT NOT NULL,
        prompt TEXT,
        skills TEXT NOT NULL,
        deliver TEXT NOT NULL,
        deliver_extra TEXT NOT NULL,
        description TEXT,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'scheduled jobs and their run history',
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        schedule TEXT NOT NULL,
        prompt TEXT NOT NULL,
        deliver TEXT NOT NULL,
        origin TEXT NOT NULL,
        skills TEXT NOT NULL DEFAULT '[]',
        script TEXT,
        catch_up TEXT NOT NULL DEFAULT 'once',
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        next_run_at_ms INTEGER,
        last_run_at_ms INTEGER,
        last_status TEXT,
        last_error TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX jobs_due ON jobs (enabled, next_run_at_ms);
      CREATE TABLE job_runs (
        id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL,
        job_name TEXT NOT NULL,
        trigger TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        scheduled_at_ms INTEGER,
        queued_at_ms INTEGER NOT NULL,
        started_at_ms INTEGER,
        finished_at_ms INTEGER,
        script_ms INTEGER,
        agent_run_id TEXT,
        output TEXT,
        error TEXT,
        delivery_target TEXT,
        delivery_ok INTEGER,
        delivery_detail TEXT
      );
      CREATE INDEX job_runs_job ON job_runs (job_id, queued_at_ms);
      CREATE INDEX job_runs_status ON job_runs (status);
    `,
  },
  {
    version: 5,
    name: 'output deliveries',
    sql: `
      CREATE TABLE output_deliveries (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        extra TEXT NOT NULL,
        subject TEXT NOT NULL,
        output TEXT NOT NULL,
        run_failed INTEGER NOT NULL,
        status TEXT NOT NULL,
        chunks_total INTEGER NOT NULL DEFAULT 0,
        chunks_sent INTEGER NOT NULL DEFAULT 0,
        detail TEXT,
        error TEXT,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
      );
      CREATE INDEX output_deliveries_created ON output_deliveries (created_at_ms);
      CREATE TABLE output_delivery_attempts (
        delivery_id TEXT NOT NULL REFERENCES output_deliveries (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        chunk INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        status INTEGER,
        error TEXT,
        PRIMARY KEY (delivery_id, seq)
      );
    `,
  },
  {
    version: 6,
    name: 'failed output deliveries index',
    // The console's header counts failed deliveries on every frame: without it, a scan of the whole history.
    // Partial, so delivered rows (nearly all of them) cost nothing to write.
    sql: `CREATE INDEX output_deliveries_failed ON output_deliveries (status) WHERE status = 'failed';`,
  },
  {
    version: 7,
    name: 'deduplicate webhook deliveries on their own rows',
    // Idempotency is answered from webhook_deliveries (its delivery_id index), not from a key table:
    // a key row cost a random B-tree insert and a delete per accepted delivery, about half the
    // write cost of an accept. The accepted rows are exactly the keys it held.
    sql: `DROP TABLE webhook_idempotency;`,
  },
];
