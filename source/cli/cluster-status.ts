import path from 'node:path';
import { clusterSummary, configWarning, formerNodeIdOf, nodeNotes, nodeTableLines, type ClusterView } from '../operations/cluster-view.js';
import type { HomeLayout } from '../config/home.js';
import { attachToGateway } from '../operations/connect.js';

export interface ClusterStatus extends ClusterView {
  /** Set when the nodes that are up run different config.json files. */
  warning?: string;
}

/** The cluster as the home's running gateway sees it; null when it runs on SQLite (no cluster). */
export async function clusterOf(home: HomeLayout): Promise<ClusterStatus | null> {
  const session = await attachToGateway({ socketPath: home.controlSocket });
  try {
    const answer = await session.operations.gateway.nodes({});
    if (!answer) return null;
    const warning = configWarning(answer.nodes);
    return { ...answer, ...(warning ? { warning } : {}) };
  } finally {
    await session.close();
  }
}

/**
 * The Nodes table of `switchboard status`. Without a cluster, nothing, unless the home was a cluster
 * node before (it keeps its `node-id`): its gateway was then likely started without the database (a
 * shell without SWITCHBOARD_DATABASE_URL) and takes webhooks on its own SQLite file, unseen by the others.
 */
export function clusterLines(cluster: ClusterStatus | null, homeRoot: string, now = Date.now()): string[] {
  if (!cluster) {
    const nodeId = formerNodeIdOf(homeRoot);
    return nodeId ? [
      `  warning   this home was cluster node ${nodeId}, but its gateway runs on its own SQLite file: the other nodes`,
      '            never see what it takes. To rejoin, restart it with SWITCHBOARD_DATABASE_URL (or store.url) set;',
      `            to leave the cluster for good, delete ${path.join(homeRoot, 'node-id')}`,
    ] : [];
  }
  return [
    `  cluster   ${clusterSummary(cluster)} (* this one)`,
    ...nodeTableLines(cluster, now).map((line) => `    ${line}`),
    ...nodeNotes(cluster).map((note) => `  note      ${note}`),
    ...(cluster.warning ? [`  warning   ${cluster.warning}`] : []),
  ];
}
