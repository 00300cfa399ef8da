import type { Migration } from '../migrations.js';

/**
 * Migration 12: the accept that also claims (source/webhooks/run-queue.ts, `reserve`). A node with a
 * free run slot and nothing queued that it knows of asks to take an arriving delivery in its
 * accept's own statement (`p_started_at_ms[i]` not NULL): when no delivery is queued in the whole
 * table, the row goes in `running`, held by node `p_node` since that time, as a claim would leave
 * it. Otherwise it goes in `queued` behind the others (the queue's order holds, and the node's
 * claim takes the oldest: another node's backlog is not left waiting). One durable commit and one
 * round trip per webhook fewer than an accept and a claim (docs/perf/cluster-bench.md, "Claimed in
 * the accept"). Answers a row per delivery, in the order given: its id and whether it was claimed
 * (a NULL id: a duplicate). `webhook_accept_many` (migration 11) stays for nodes of the version
 * before during an upgrade, and now calls this one. The body repeats migration 11's with the claim
 * added: a released migration is never edited, as databases have run it.
 */
export const acceptClaimMigration: Migration = {
  version: 12,
  name: 'the webhook accept that claims the delivery for the node with a free slot',
  sql: `
    CREATE FUNCTION webhook_accept_claim_many(p_route TEXT[], p_delivery_id TEXT[], p_event TEXT[], p_headers TEXT[], p_body BYTEA[], p_prompt TEXT[],
      p_skills TEXT[], p_target TEXT[], p_target_extra TEXT[], p_replay_of TEXT[], p_received_at_ms BIGINT[], p_window_ms BIGINT[],
      p_node TEXT, p_started_at_ms BIGINT[]) RETURNS TABLE (seq BIGINT, claimed BOOLEAN) AS $$
    DECLARE
      lock_key BIGINT;
      claim_at BIGINT;
    BEGIN
      FOR lock_key IN SELECT DISTINCT hashtextextended('delivery' || chr(10) || r || chr(10) || d, 0)
          FROM unnest(p_route, p_delivery_id, p_window_ms) AS t(r, d, w) WHERE w IS NOT NULL ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(lock_key);
      END LOOP;
      FOR i IN 1 .. coalesce(array_length(p_route, 1), 0) LOOP
        IF p_window_ms[i] IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries WHERE delivery_id = p_delivery_id[i]
            AND received_at_ms > p_received_at_ms[i] - p_window_ms[i] AND route IS NOT DISTINCT FROM p_route[i]) THEN
          seq := NULL;
          claimed := FALSE;
          RETURN NEXT;
          CONTINUE;
        END IF;
        claim_at := p_started_at_ms[i];
        IF claim_at IS NOT NULL AND (p_node IS NULL OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE state = 'queued')) THEN
          claim_at := NULL;
        END IF;
        INSERT INTO webhook_deliveries (route, delivery_id, event, headers, body, prompt, skills, target, target_extra, state, replay_of, received_at_ms,
            node_id, started_at_ms)
          VALUES (p_route[i], p_delivery_id[i], p_event[i], p_headers[i]::jsonb, p_body[i], p_prompt[i], p_skills[i]::jsonb, p_target[i],
            p_target_extra[i]::jsonb, CASE WHEN claim_at IS NULL THEN 'queued' ELSE 'running' END, p_replay_of[i], p_received_at_ms[i],
            CASE WHEN claim_at IS NULL THEN NULL ELSE p_node END, claim_at)
          RETURNING id INTO seq;
        claimed := claim_at IS NOT NULL;
        RETURN NEXT;
      END LOOP;
    END
    $$ LANGUAGE plpgsql;

    CREATE OR REPLACE FUNCTION webhook_accept_many(p_route TEXT[], p_delivery_id TEXT[], p_event TEXT[], p_headers TEXT[], p_body BYTEA[], p_prompt TEXT[],
      p_skills TEXT[], p_target TEXT[], p_target_extra TEXT[], p_replay_of TEXT[], p_received_at_ms BIGINT[], p_window_ms BIGINT[]) RETURNS BIGINT[] AS $$
      SELECT coalesce(array_agg(answer.seq ORDER BY answer.n), '{}') FROM webhook_accept_claim_many(p_route, p_delivery_id, p_event, p_headers, p_body,
        p_prompt, p_skills, p_target, p_target_extra, p_replay_of, p_received_at_ms, p_window_ms, NULL,
        array_fill(NULL::BIGINT, ARRAY[coalesce(array_length(p_route, 1), 0)])) WITH ORDINALITY AS answer(seq, claimed, n)
    $$ LANGUAGE sql;
  `,
};
