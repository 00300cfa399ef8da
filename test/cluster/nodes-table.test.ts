import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterLines } from '../../source/cli/cluster-status.js';
import { nodeNotes } from '../../source/cluster/nodes-table.js';
import type { NodeView } from '../../source/store/pg/nodes.js';

const NOW = 1_000_000;
const node = (id: string, state: NodeView['state'], takenOverBy: string | null = null): NodeView => ({
  id, state, takenOverBy, host: 'vm', pid: 1, version: '0.1.0', configHash: 'abc', runsInFlight: 0, webhookUrl: null,
  startedAtMs: 0, heartbeatAtMs: state === 'up' ? NOW - 1_000 : NOW - 20_000, late: false,
});

describe('the nodes table of status and /nodes', () => {
  it('says which live node took over the work of a down node, once one did', () => {
    const view = { nodeId: 'a', nodes: [node('a', 'up'), node('b', 'down', 'a'), node('c', 'down'), node('d', 'down', 'e'), node('e', 'up')] };
    expect(nodeNotes(view)).toEqual(['b is down; a (this one) took over its work', 'd is down; e took over its work']);
    const lines = clusterLines(view, '/nowhere', NOW);
    expect(lines[0]).toBe('  cluster   2 of 5 node(s) up (* this one)');
    expect(lines).toContain('  note      d is down; e took over its work');
    expect(lines.find((line) => line.includes(' b '))).toMatch(/b\s+down \(silent 20 s\)/);
  });

  it('says how long a late node has been silent, and how long a down one has', () => {
    const late = { ...node('b', 'up'), late: true, heartbeatAtMs: NOW - 9_000 };
    const lines = clusterLines({ nodeId: 'a', nodes: [node('a', 'up'), late, node('c', 'down')] }, '/nowhere', NOW);
    expect(lines[0]).toBe('  cluster   2 of 3 node(s) up (* this one)');
    expect(lines.find((line) => line.includes(' b '))).toMatch(/b\s+up, late \(silent 9 s\)\s+vm/);
    expect(lines.find((line) => line.includes(' c '))).toMatch(/c\s+down \(silent 20 s\)\s+vm/);
  });

  it("ends each row with the node's listener URL (where to post to it), or - without one", () => {
    const listening = { ...node('a', 'up'), webhookUrl: 'http://127.0.0.1:8790' };
    const lines = clusterLines({ nodeId: 'a', nodes: [listening, node('b', 'up')] }, '/nowhere', NOW);
    expect(lines.find((line) => /node\s+state/.test(line))).toMatch(/heartbeat\s+webhooks$/);
    expect(lines.find((line) => line.includes(' a *'))).toMatch(/1 s ago\s+http:\/\/127\.0\.0\.1:8790$/);
    expect(lines.find((line) => line.includes(' b '))).toMatch(/1 s ago\s+-$/);
  });

  it('warns on a home that was a cluster node but whose gateway runs on SQLite, and says nothing on a plain SQLite home', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-nodes-table-'));
    try {
      expect(clusterLines(null, home, NOW)).toEqual([]);
      fs.writeFileSync(path.join(home, 'node-id'), 'vm-1234abcd\n');
      const lines = clusterLines(null, home, NOW).join('\n');
      expect(lines).toContain('this home was cluster node vm-1234abcd, but its gateway runs on its own SQLite file');
      expect(lines).toContain('SWITCHBOARD_DATABASE_URL');
      expect(lines).toContain(path.join(home, 'node-id'));
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
