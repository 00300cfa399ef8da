/**
 * The cluster as front ends show it (`switchboard status`, the console's /nodes): the nodes table's
 * wording lives with the membership that also logs it (source/cluster/nodes-table.ts); front ends
 * reach it, and a home's former node id, through here.
 */
export { clusterSummary, configWarning, nodeNotes, nodeTableLines, type ClusterView } from '../cluster/nodes-table.js';
export { formerNodeIdOf } from '../store/database-url.js';
