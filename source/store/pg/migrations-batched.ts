import type { Migration } from '../migrations.js';

/**
 * Migration 11: the intake's two calls for several requests at once (source/store/pg/batch.ts).
 * Accepts and rate checks that arrive together share one round trip and one commit; each request
 * keeps its own answer, in the order given.
 */
export const batchedIntakeMigration: Migration = {
  version: 11,
  name: 'the webhook accept and rate check for several requests in one call',
  // The accept: every deduplicated (route, delivery id) is locked first, in ascending key order,
  // so two nodes' batches never wait on each other in a cycle (a single accept takes one lock).
  // Then each row in the order given, as webhook_accept does: a delivery id twice in one batch is
  // accepted once (the second sees the first's row: same transaction). NULL: a duplicate.
  // The duplicate check finds the row by delivery id (webhook_deliveries_delivery): \`route IS NOT
  // DISTINCT FROM\` (route is NOT NULL: the same as =) keeps the route out of the index search. With
  // \`route = \`, a plan made while the table was empty (a new database; plpgsql keeps it for the
  // connection's life) went through webhook_deliveries_route and read every row of the route.
  // The rate check: `p_count` requests on one route under the route's lock; the first ones the
  // window has room for are admitted (NULL), the rest get the wait until it has room again. When
  // the window has room for more than 100 times `p_reserve` after them, `p_reserve` more slots are
  // taken for the node to admit on its own for `p_reserve_ms` (returned as that many NULLs after
  // the answers); they are stamped `p_reserve_ms` late, so a slot used late still leaves the
  // window no earlier than its request's own stamp would. Slots left unused count until they leave.
  sql: `
    CREATE FUNCTION webhook_accept_many(p_route TEXT[], p_delivery_id TEXT[], p_event TEXT[], p_headers TEXT[], p_body BYTEA[], p_prompt TEXT[],
      p_skills TEXT[], p_target TEXT[], p_target_extra TEXT[], p_replay_of TEXT[], p_received_at_ms BIGINT[], p_window_ms BIGINT[]) RETURNS BIGINT[] AS $$
    DECLARE
      answers BIGINT[] := '{}';
      accepted BIGINT;
      lock_key BIGINT;
    BEGIN
      FOR lock_key IN SELECT DISTINCT hashtextextended('delivery' || chr(10) || r || chr(10) || d, 0)
          FROM unnest(p_route, p_delivery_id, p_window_ms) AS t(r, d, w) WHERE w IS NOT NULL ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(lock_key);
      END LOOP;
      FOR i IN 1 .. coalesce(array_length(p_route, 1), 0) LOOP
        IF p_window_ms[i] IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries WHERE delivery_id = p_delivery_id[i]
            AND received_at_ms > p_received_at_ms[i] - p_window_ms[i] AND route IS NOT DISTINCT FROM p_route[i]) THEN
          answers := answers || NULL::BIGINT;
          CONTINUE;
        END IF;
        INSERT INTO webhook_deliveries (route, delivery_id, event, headers, body, prompt, skills, target, target_extra, state, replay_of, received_at_ms)
          VALUES (p_route[i], p_delivery_id[i], p_event[i], p_headers[i]::jsonb, p_body[i], p_prompt[i], p_skills[i]::jsonb, p_target[i],
            p_target_extra[i]::jsonb, 'queued', p_replay_of[i], p_received_at_ms[i])
          RETURNING id INTO accepted;
        answers := answers || accepted;
      END LOOP;
      RETURN answers;
    END
    $$ LANGUAGE plpgsql;

    CREATE FUNCTION webhook_rate_admit_many(p_route TEXT, p_at_ms BIGINT, p_window_ms BIGINT, p_limit INTEGER, p_count INTEGER,
      p_reserve INTEGER, p_reserve_ms BIGINT) RETURNS BIGINT[]
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      first_seq BIGINT;
      last_seq BIGINT;
      last_at BIGINT;
      room BIGINT;
      admitted INTEGER;
      reserved INTEGER := 0;
      wait BIGINT;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit' || chr(10) || p_route, 0));
      DELETE FROM webhook_rate_admits WHERE route = p_route AND at_ms <= p_at_ms - p_window_ms;
      SELECT seq INTO first_seq FROM webhook_rate_admits WHERE route = p_route ORDER BY seq LIMIT 1;
      SELECT seq, at_ms INTO last_seq, last_at FROM webhook_rate_admits WHERE route = p_route ORDER BY seq DESC LIMIT 1;
      room := p_limit - COALESCE(last_seq - first_seq + 1, 0);
      admitted := LEAST(p_count, GREATEST(0, room));
      IF room - admitted >= 100 * p_reserve THEN
        reserved := p_reserve;
      END IF;
      IF admitted > 0 THEN
        INSERT INTO webhook_rate_admits (route, seq, at_ms)
          SELECT p_route, COALESCE(last_seq, 0) + n, GREATEST(p_at_ms, COALESCE(last_at, p_at_ms)) FROM generate_series(1, admitted) AS n;
        last_seq := COALESCE(last_seq, 0) + admitted;
      END IF;
      IF reserved > 0 THEN
        INSERT INTO webhook_rate_admits (route, seq, at_ms)
          SELECT p_route, COALESCE(last_seq, 0) + n, GREATEST(p_at_ms + p_reserve_ms, COALESCE(last_at, p_at_ms)) FROM generate_series(1, reserved) AS n;
        last_seq := COALESCE(last_seq, 0) + reserved;
      END IF;
      IF admitted < p_count THEN
        SELECT at_ms + p_window_ms - p_at_ms INTO wait FROM webhook_rate_admits WHERE route = p_route AND seq = last_seq - p_limit + 1;
      END IF;
      RETURN array_fill(NULL::BIGINT, ARRAY[admitted]) || array_fill(wait, ARRAY[p_count - admitted]) || array_fill(NULL::BIGINT, ARRAY[reserved]);
    END
    $$;
  `,
};
