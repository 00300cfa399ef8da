import { clusterSummary, configWarning, nodeTableLines, type ClusterView } from '../cluster/nodes-table.js';
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

/** The Nodes table of `switchboard status`. */
export function clusterLines(cluster: ClusterStatus, now = Date.now()): string[] {
  return [
    `  cluster   ${clusterSummary(cluster)} (* this one)`,
    ...nodeTableLines(cluster, now).map((line) => `    ${line}`),
    ...(cluster.warning ? [`  warning   ${cluster.warning}`] : []),
  ];
}
