import type { HeldDelivery } from '../webhook-deliveries.js';
import type { PgStore } from './pg-store.js';

/** What a node says about itself at each heartbeat. */
export interface NodeInfo {
  host: string;
  pid: number;
  version: string;
  /** The first 12 hex digits of the SHA-256 of its config.json: nodes that differ are shown. */
  configHash: string;
  runsInFlight: number;
  webhookUrl: string | null;
}

export interface NodeView extends NodeInfo {
  id: string;
  startedAtMs: number;
  heartbeatAtMs: number;
  /** `down`: silent for 3 heartbeats; `stopped`: it said goodbye. */
  state: 'up' | 'down' | 'stopped';
  /**
   * Up, but its last heartbeat is more than 1.5 heartbeats old: a beat is overdue (a stalled event
   * loop, a slow database, a frozen VM). Shown before the node counts as down, so an operator sees
   * trouble coming; false for nodes that are down or stopped.
   */
  late: boolean;
  /** The node that took over its running work after it went down, if one did. */
  takenOverBy: string | null;
}

const columns = `id, host, pid, version, config_hash AS "configHash", runs_in_flight AS "runsInFlight", webhook_url AS "webhookUrl",
  started_at_ms AS "startedAtMs", heartbeat_at_ms AS "heartbeatAtMs", stopped_at_ms AS "stoppedAtMs", taken_over_by AS "takenOverBy"`;

/** The `nodes` table: who is in the cluster, who went silent, who took over whose work. */
export function createNodeRegistry(store: PgStore, nodeId: string, heartbeatMs: number, now: () => number = Date.now) {
  const silentSince = () => now() - 3 * heartbeatMs;
  const lateSince = () => now() - 1.5 * heartbeatMs;
  return {
    /** Joins (or rejoins after a restart: its earlier stop or takeover is forgotten). */
    async join(info: NodeInfo): Promise<void> {
      const at = now();
      await store.query(`INSERT INTO nodes (id, host, pid, version, config_hash, runs_in_flight, webhook_url, started_at_ms, heartbeat_at_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
        ON CONFLICT (id) DO UPDATE SET host = $2, pid = $3, version = $4, config_hash = $5, runs_in_flight = $6, webhook_url = $7,
          started_at_ms = $8, heartbeat_at_ms = $8, stopped_at_ms = NULL, taken_over_by = NULL, taken_over_at_ms = NULL`,
      [nodeId, info.host, info.pid, info.version, info.configHash, info.runsInFlight, info.webhookUrl, at]);
    },
    /**
     * Says this node is alive. Answers who took it for dead, if another node did since the last beat
     * (a pause longer than 3 heartbeats): that node took over its work, so the mark is cleared here.
     */
    async beat(info: NodeInfo): Promise<string | null> {
      const { rows } = await store.query<{ takenOverBy: string | null }>(`UPDATE nodes AS n SET heartbeat_at_ms = $2, config_hash = $3, runs_in_flight = $4, webhook_url = $5,
        taken_over_by = NULL, taken_over_at_ms = NULL FROM (SELECT taken_over_by FROM nodes WHERE id = $1 FOR UPDATE) AS before
        WHERE n.id = $1 RETURNING before.taken_over_by AS "takenOverBy"`, [nodeId, now(), info.configHash, info.runsInFlight, info.webhookUrl]);
      return rows[0]?.takenOverBy ?? null;
    },
    /** A clean stop: its runs went back to the queue, nothing to take over. */
    async leave(): Promise<void> {
      await store.query('UPDATE nodes SET stopped_at_ms = $2, runs_in_flight = 0 WHERE id = $1', [nodeId, now()]);
    },
    /**
     * The nodes silent for 3 heartbeats that this node now takes over: one UPDATE per dead node,
     * so of several live nodes noticing it at once exactly one takes its work.
     */
    async claimSilent(): Promise<string[]> {
      const { rows } = await store.query<{ id: string }>(`UPDATE nodes SET taken_over_by = $1, taken_over_at_ms = $2
        WHERE id <> $1 AND stopped_at_ms IS NULL AND taken_over_by IS NULL AND heartbeat_at_ms < $3 RETURNING id`, [nodeId, now(), silentSince()]);
      return rows.map((row) => row.id);
    },
    /**
     * Nodes gone for good: stopped, or taken over, at least `afterMs` ago. Their work is done and
     * their rows go (a home that comes back later joins again under its id).
     */
    async forgetGone(afterMs: number): Promise<string[]> {
      const { rows } = await store.query<{ id: string }>(`DELETE FROM nodes WHERE id <> $1
        AND (stopped_at_ms < $2 OR (taken_over_by IS NOT NULL AND taken_over_at_ms < $2)) RETURNING id`, [nodeId, now() - afterMs]);
      return rows.map((row) => row.id);
    },
    /**
     * The delivery rows a dead node left finished but undelivered (\`rows\`, as its recovery read
     * them) become this node's to deliver; answers the ids taken. Only those claims: a node that was
     * only frozen may have woken up meanwhile and finished one, or claimed a row its recovery had
     * queued again, and those stay its own.
     */
    async adoptDeliveries(fromNodeId: string, rows: HeldDelivery[]): Promise<Set<number>> {
      const { rows: taken } = await store.query<{ id: string }>(`UPDATE webhook_deliveries AS d SET node_id = $1
        FROM unnest($3::bigint[], $4::bigint[]) AS h(id, started_at_ms)
        WHERE d.id = h.id AND d.node_id = $2 AND d.state = 'running' AND d.run_status IS NOT NULL AND d.started_at_ms IS NOT DISTINCT FROM h.started_at_ms
        RETURNING d.id`, [nodeId, fromNodeId, rows.map((row) => row.seq), rows.map((row) => row.startedAtMs)]);
      return new Set(taken.map((row) => Number(row.id)));
    },
    async list(): Promise<NodeView[]> {
      const { rows } = await store.query<Omit<NodeView, 'state' | 'late'> & { stoppedAtMs: number | null }>(`SELECT ${columns} FROM nodes ORDER BY started_at_ms, id`);
      const silent = silentSince();
      const late = lateSince();
      return rows.map(({ stoppedAtMs, ...row }) => {
        const state = stoppedAtMs !== null ? 'stopped' : row.heartbeatAtMs < silent ? 'down' : 'up';
        return { ...row, state, late: state === 'up' && row.heartbeatAtMs < late };
      });
    },
  };
}

export type NodeRegistry = ReturnType<typeof createNodeRegistry>;
