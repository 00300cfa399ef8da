import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createDeliver } from '../../source/delivery/deliver.js';
import { safeName } from '../../source/delivery/local-target.js';
import { tempHome } from '../helpers/temp-home.js';

describe('local delivery file names', () => {
  it('one file per delivery id: ids that used to collide (coll/1 and coll_1, . and .., long ids) get their own file, none overwritten', async () => {
    const home = tempHome();
    const deliver = createDeliver({ homeRoot: home.root, logger: pino({ level: 'silent' }), now: () => 0 });
    const long = 'x'.repeat(300);
    const ids = ['coll/1', 'coll_1', '.', '..', `${long}a`, `${long}b`, '%2E'];
    const written: string[] = [];
    for (const id of ids) {
      const result = await deliver({ target: 'local', output: `for ${id}`, subject: { kind: 'webhook', route: 'r', deliveryId: id, event: 'push' } });
      if (!result.ok) throw new Error(result.reason);
      written.push(result.detail);
    }
    expect(new Set(written).size).toBe(ids.length);
    for (const [index, file] of written.entries()) {
      expect(path.dirname(file)).toBe(path.join(home.root, 'deliveries', 'r'));
      expect(fs.readFileSync(file, 'utf8')).toBe(`for ${ids[index]}\n`);
    }
    expect(path.basename(written[4]!).length).toBeLessThanOrEqual(124);
  });

  it('never overwrites: the same delivery delivered again (a retry) gets a second file', async () => {
    const home = tempHome();
    const deliver = createDeliver({ homeRoot: home.root, logger: pino({ level: 'silent' }), now: () => 0 });
    const subject = { kind: 'webhook' as const, route: 'r', deliveryId: 'same', event: 'push' };
    const first = await deliver({ target: 'local', output: 'first', subject });
    const second = await deliver({ target: 'local', output: 'second', subject });
    expect([first, second]).toEqual([{ ok: true, detail: path.join(home.root, 'deliveries', 'r', 'same.md') }, { ok: true, detail: path.join(home.root, 'deliveries', 'r', 'same-2.md') }]);
    expect(fs.readFileSync(path.join(home.root, 'deliveries', 'r', 'same.md'), 'utf8')).toBe('first\n');
  });

  it('the encoding is reversible and keeps plain names as they are', () => {
    expect(safeName('delivery-1.json_x')).toBe('delivery-1.json_x');
    expect(safeName('coll/1')).toBe('coll%2F1');
    expect(decodeURIComponent(safeName('.hidden/ü'))).toBe('.hidden/ü');
  });
});
