import type { HomeLayout } from '../config/home.js';
import { attachToGateway } from '../operations/connect.js';
import type { NodeView } from '../store/pg/nodes.js';

export interface ClusterStatus {
  nodeId: string;
  nodes: NodeView[];
  /** Set when the nodes that are up run different config.json files. */
  warning?: string;
}

/** The cluster as the home's running gateway sees it; null when it runs on SQLite (no cluster). */
export async function clusterOf(home: HomeLayout): Promise<ClusterStatus | null> {
  const session = await attachToGateway({ socketPath: home.controlSocket });
  try {
    const answer = await session.operations.gateway.nodes({});
    if (!answer) return null;
    const hashes = [...new Set(answer.nodes.filter((node) => node.state === 'up').map((node) => node.configHash))];
    const warning = hashes.length > 1
      ? `the nodes that are up run ${hashes.length} different config.json files (${answer.nodes.filter((node) => node.state === 'up').map((node) => `${node.id} ${node.configHash}`).join(', ')}); make them the same`
      : undefined;
    return { ...answer, ...(warning ? { warning } : {}) };
  } finally {
    await session.close();
  }
}

/** The Nodes table of `switchboard status`. */
export function clusterLines(cluster: ClusterStatus, now = Date.now()): string[] {
  const rows = cluster.nodes.map((node) => [
    `${node.id}${node.id === cluster.nodeId ? ' *' : ''}`, node.state === 'down' ? `down (silent ${Math.round((now - node.heartbeatAtMs) / 1000)} s)` : node.state,
    node.host, String(node.pid), node.version, node.configHash, String(node.runsInFlight), `${Math.max(0, Math.round((now - node.heartbeatAtMs) / 1000))} s ago`,
  ]);
  const header = ['node', 'state', 'host', 'pid', 'version', 'config', 'runs', 'heartbeat'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `    ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  return [
    `  cluster   ${cluster.nodes.filter((node) => node.state === 'up').length} of ${cluster.nodes.length} node(s) up (* this one)`,
    line(header), ...rows.map(line),
    ...(cluster.warning ? [`  warning   ${cluster.warning}`] : []),
  ];
}
