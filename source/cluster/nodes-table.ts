import type { NodeView } from '../store/pg/nodes.js';

/** The cluster as `status` and the console's /nodes show it. */
export interface ClusterView {
  nodeId: string;
  nodes: NodeView[];
}

/** Set when the nodes that are up run different config.json files (compared by hash). */
export function configWarning(nodes: readonly NodeView[]): string | undefined {
  const up = nodes.filter((node) => node.state === 'up');
  if (new Set(up.map((node) => node.configHash)).size <= 1) return undefined;
  return `the nodes that are up run different config.json files (${up.map((node) => `${node.id} ${node.configHash}`).join(', ')}); make them the same`;
}

/** `N of M node(s) up`. */
export function clusterSummary(view: ClusterView): string {
  return `${view.nodes.filter((node) => node.state === 'up').length} of ${view.nodes.length} node(s) up`;
}

/**
 * The nodes as aligned text lines, a header first; `*` marks the node asked. The listener's URL comes
 * last (where to post to that node; `-` without one): the column a narrow screen cuts first.
 */
export function nodeTableLines(view: ClusterView, now: number): string[] {
  const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));
  const rows = view.nodes.map((node) => [
    `${node.id}${node.id === view.nodeId ? ' *' : ''}`,
    node.state === 'down' ? `down (silent ${seconds(now - node.heartbeatAtMs)} s)` : node.late ? `up, late (silent ${seconds(now - node.heartbeatAtMs)} s)` : node.state,
    node.host, String(node.pid), node.version, node.configHash, String(node.runsInFlight), `${seconds(now - node.heartbeatAtMs)} s ago`, node.webhookUrl ?? '-',
  ]);
  const header = ['node', 'state', 'host', 'pid', 'version', 'config', 'runs', 'heartbeat', 'webhooks'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows].map((cells) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

/**
 * What the table's cells cannot say: which live node took over the work of each down node (its
 * queued runs, its sends), so the operator knows where to look for them.
 */
export function nodeNotes(view: ClusterView): string[] {
  return view.nodes.filter((node) => node.state === 'down' && node.takenOverBy)
    .map((node) => `${node.id} is down; ${node.takenOverBy}${node.takenOverBy === view.nodeId ? ' (this one)' : ''} took over its work`);
}
