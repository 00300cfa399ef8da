import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configHash } from '../../source/cluster/membership.js';
import { configWarning } from '../../source/cluster/nodes-table.js';
import type { NodeView } from '../../source/store/pg/nodes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-hash-'));
const hashOf = (config: unknown, name = 'config.json') => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return configHash(file);
};
const base = { model: { provider: 'dry-run' }, platforms: { webhook: { enabled: true, extra: { host: '127.0.0.1', port: 8701, routes: { demo: { secret: '${DEMO_SECRET}' } } } } } };

describe('the config hash nodes compare', () => {
  it('is the same for configs that differ only in what is each node own: listener host and port, control channel, key order', () => {
    const first = hashOf(base);
    expect(first).toMatch(/^[0-9a-f]{12}$/);
    expect(hashOf({ ...base, platforms: { webhook: { enabled: true, extra: { routes: base.platforms.webhook.extra.routes, port: 8702, host: '0.0.0.0' } } } })).toBe(first);
    expect(hashOf({ control: { port: 9000 }, platforms: base.platforms, model: base.model })).toBe(first);
  });

  it('differs when the shared part differs, and says when the file cannot be read', () => {
    const first = hashOf(base);
    expect(hashOf({ ...base, model: { provider: 'openai' } })).not.toBe(first);
    expect(hashOf('{ not json')).toBe('unreadable');
  });

  it('warns only about nodes that are up', () => {
    const node = (id: string, configHash: string, state: NodeView['state'] = 'up'): NodeView => ({ id, configHash, state, host: 'h', pid: 1, version: 'v', runsInFlight: 0, webhookUrl: null, startedAtMs: 0, heartbeatAtMs: 0, late: false, takenOverBy: null });
    expect(configWarning([node('a', 'x'), node('b', 'x'), node('c', 'y', 'down')])).toBeUndefined();
    expect(configWarning([node('a', 'x'), node('b', 'y')])).toBe('the nodes that are up run different config.json files (a x, b y); make them the same');
  });
});
